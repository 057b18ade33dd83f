package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

func TestAgentGrantKeepsTokensOnlyAsHashesAndLosesRemovedServers(t *testing.T) {
	ctx := context.Background()
	s, dir := openTemp(t)
	for _, id := range []string{"a", "b"} {
		if err := s.PutServer(ctx, store.Server{User: "ann", ID: id, Name: "srv " + id, URL: "http://x/" + id}); err != nil {
			t.Fatal(err)
		}
	}
	access, at := store.NewAgentToken(store.TokenAccess, time.Now().Add(time.Hour))
	g, err := s.CreateAgentGrant(ctx, store.AgentGrant{User: "ann", ClientID: "c", ClientName: "C", ClientHost: "c.example", Servers: []string{"a", "b"}}, at)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateAgentGrant(ctx, store.AgentGrant{User: "bob", ClientID: "c", Servers: []string{"a"}}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a grant of another user's server: %v, want ErrNotFound", err)
	}
	got, tok, err := s.AgentGrantByToken(ctx, store.HashAgentToken(access))
	if err != nil || got.ID != g.ID || tok.Kind != store.TokenAccess || !slices.Equal(got.Servers, []string{"a", "b"}) {
		t.Fatalf("by token: %+v %+v %v", got, tok, err)
	}
	if err := s.DeleteServer(ctx, "ann", "a"); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.AgentGrantByID(ctx, g.ID); !slices.Equal(got.Servers, []string{"b"}) {
		t.Errorf("after removing server a the grant reaches %v", got.Servers)
	}
	assertNotInFiles(t, dir, access)
}

func TestRefreshTokenRotatesOnceThenRevokesItsGrant(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	now := time.Now()
	first, rt := store.NewAgentToken(store.TokenRefresh, now.Add(time.Hour))
	g, err := s.CreateAgentGrant(ctx, store.AgentGrant{User: "ann", ClientID: "c", AllServers: true}, rt)
	if err != nil {
		t.Fatal(err)
	}
	_, next := store.NewAgentToken(store.TokenRefresh, now.Add(time.Hour))
	if got, err := s.RotateAgentRefresh(ctx, store.HashAgentToken(first), now, next); err != nil || got.ID != g.ID {
		t.Fatalf("first rotation: %+v %v", got, err)
	}
	if _, err := s.RotateAgentRefresh(ctx, store.HashAgentToken(first), now); !errors.Is(err, store.ErrRefreshReused) {
		t.Errorf("second rotation of the same token: %v, want ErrRefreshReused", err)
	}
	if got, _ := s.AgentGrantByID(ctx, g.ID); got.Revoked.IsZero() {
		t.Error("the grant survived a reused refresh token")
	}
	if _, err := s.RotateAgentRefresh(ctx, next.Hash, now); !errors.Is(err, store.ErrGrantRevoked) {
		t.Errorf("the newer token of the revoked grant: %v, want ErrGrantRevoked", err)
	}
}

func TestRevokedAgentGrantsAreListedSinceWhen(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	var ids []string
	for range 2 {
		g, err := s.CreateAgentGrant(ctx, store.AgentGrant{User: "ann", ClientID: "c", AllServers: true})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, g.ID)
	}
	before := time.Now().Add(-time.Second)
	if got, err := s.RevokedAgentGrants(ctx, before); err != nil || len(got) != 0 {
		t.Fatalf("before any revocation: %v, %v", got, err)
	}
	if err := s.RevokeAgentGrant(ctx, "ann", ids[1]); err != nil {
		t.Fatal(err)
	}
	if got, err := s.RevokedAgentGrants(ctx, before); err != nil || !slices.Equal(got, ids[1:]) {
		t.Errorf("revoked since before: %v, %v; want %v", got, err, ids[1:])
	}
	if got, _ := s.RevokedAgentGrants(ctx, time.Now().Add(time.Minute)); len(got) != 0 {
		t.Errorf("revoked since a minute ahead: %v, want none", got)
	}
}
