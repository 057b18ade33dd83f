package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// Every write of a user's servers marks that user, whichever process
// writes, and reading since a mark returns only the users changed after it.
func TestServerWritesMarkTheirUser(t *testing.T) {
	ctx := context.Background()
	s, db := openTemp(t)
	users := func(since int64) ([]string, int64) {
		t.Helper()
		marks, err := s.ServerMarksSince(ctx, since)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range marks {
			out = append(out, m.User)
			since = m.Seq
		}
		slices.Sort(out)
		return out, since
	}
	if got, _ := users(0); len(got) != 0 {
		t.Fatalf("marks of an empty store: %v", got)
	}
	put := func(st *store.Store, user, id, name string) {
		t.Helper()
		if err := st.PutServer(ctx, store.Server{User: user, ID: id, Name: name, URL: "http://127.0.0.1:9/" + id}); err != nil {
			t.Fatal(err)
		}
	}
	put(s, "ann", "a1", "one")
	put(s, "bob", "b1", "one")
	got, seq := users(0)
	if !slices.Equal(got, []string{"ann", "bob"}) {
		t.Fatalf("after adding ann's and bob's servers: %v", got)
	}
	if got, _ := users(seq); len(got) != 0 {
		t.Fatalf("since the latest mark: %v, want none", got)
	}

	other := store.OpenAt(t, db) // another process on the same database
	put(other, "ann", "a1", "renamed")
	got, seq = users(seq)
	if !slices.Equal(got, []string{"ann"}) {
		t.Errorf("after another process edited ann's server: %v", got)
	}
	if err := other.DeleteServer(ctx, "bob", "b1"); err != nil {
		t.Fatal(err)
	}
	if got, _ = users(seq); !slices.Equal(got, []string{"bob"}) {
		t.Errorf("after another process removed bob's server: %v", got)
	}
}
