package store_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

func TestRootsReplaceKeepsOrderPerUser(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	ann := []store.Root{{URI: "file:///b", Name: "B"}, {URI: "file:///a"}}
	must(t, s.SetRoots(ctx, "ann", ann))
	must(t, s.SetRoots(ctx, "bob", []store.Root{{URI: "file:///bob"}}))
	if got, err := s.Roots(ctx, "ann"); err != nil || !reflect.DeepEqual(got, ann) {
		t.Fatalf("Roots(ann) = %v, %v; want %v", got, err, ann)
	}
	must(t, s.SetRoots(ctx, "ann", nil))
	if got, err := s.Roots(ctx, "ann"); err != nil || len(got) != 0 {
		t.Errorf("Roots(ann) after clearing = %v, %v; want none", got, err)
	}
	if got, err := s.Roots(ctx, "bob"); err != nil || len(got) != 1 {
		t.Errorf("Roots(bob) = %v, %v; want bob's one root untouched", got, err)
	}
}

func TestClientPrefsGoWithTheirServer(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	must(t, s.PutServer(ctx, store.Server{User: "ann", ID: "a", Name: "one", URL: "http://127.0.0.1:1/mcp", Transport: "sse", CreatedAt: time.Now()}))
	if p, err := s.ClientPrefs(ctx, "ann", "a"); err != nil || p != (store.ClientPrefs{}) {
		t.Fatalf("prefs before any choice = %+v, %v; want zero", p, err)
	}
	want := store.ClientPrefs{RootsHidden: true, LogLevel: "warning"}
	must(t, s.SetClientPrefs(ctx, "ann", "a", want))
	if p, err := s.ClientPrefs(ctx, "ann", "a"); err != nil || p != want {
		t.Fatalf("prefs = %+v, %v; want %+v", p, err, want)
	}
	if err := s.SetClientPrefs(ctx, "bob", "a", want); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("prefs of another user's server: err = %v; want ErrNotFound", err)
	}
	must(t, s.DeleteServer(ctx, "ann", "a"))
	must(t, s.PutServer(ctx, store.Server{User: "ann", ID: "a", Name: "one", URL: "http://127.0.0.1:1/mcp", Transport: "sse", CreatedAt: time.Now()}))
	if p, err := s.ClientPrefs(ctx, "ann", "a"); err != nil || p != (store.ClientPrefs{}) {
		t.Errorf("prefs after the server was removed and added again = %+v, %v; want zero", p, err)
	}
}
