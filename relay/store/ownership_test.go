package store

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

func openOwnership(t *testing.T, s *Store, addr string) *Ownership {
	t.Helper()
	o, err := s.OpenOwnership(context.Background(), addr)
	if err != nil {
		t.Fatalf("open ownership: %v", err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}

func TestAUserHasOneOwnerNamedByItsLockUntilItLetsGoOrDies(t *testing.T) {
	postgresOnly(t)
	ctx := context.Background()
	s, db := openTest(t)
	a := openOwnership(t, s, "10.0.0.1:9090")
	b := openOwnership(t, openAt(t, db), "10.0.0.2:9090")

	if _, found, err := b.OwnerOf(ctx, "alice"); err != nil || found {
		t.Fatalf("before anyone takes alice: found %v, err %v", found, err)
	}
	if got, err := a.TryOwn(ctx, "alice"); err != nil || !got {
		t.Fatalf("A takes alice: %v, %v", got, err)
	}
	if got, err := b.TryOwn(ctx, "alice"); err != nil || got {
		t.Fatalf("B takes alice while A holds her: %v, %v", got, err)
	}
	if got, err := b.TryOwn(ctx, "bob"); err != nil || !got {
		t.Fatalf("B takes bob: %v, %v", got, err)
	}
	for user, want := range map[string]string{"alice": "10.0.0.1:9090", "bob": "10.0.0.2:9090"} {
		if addr, found, err := a.OwnerOf(ctx, user); err != nil || !found || addr != want {
			t.Errorf("owner of %s: %q, %v, %v; want %s", user, addr, found, err, want)
		}
	}

	if err := a.Release(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := b.OwnerOf(ctx, "alice"); found {
		t.Error("alice still has an owner after A let her go")
	}
	if got, err := b.TryOwn(ctx, "alice"); err != nil || !got {
		t.Fatalf("B takes alice after A let her go: %v, %v", got, err)
	}

	// B's connection drops (the replica died): its users are free as soon
	// as PostgreSQL has ended B's backend, which it does by itself.
	b.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := a.TryOwn(ctx, "bob")
		if err != nil {
			t.Fatal(err)
		}
		if got {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("bob is still owned 5 s after B's connection dropped")
		}
		time.Sleep(10 * time.Millisecond) // polls PostgreSQL's own state: no event tells
	}
	if addr, _, _ := a.OwnerOf(ctx, "bob"); addr != "10.0.0.1:9090" {
		t.Errorf("bob's owner is %q after A took him", addr)
	}
}

func TestOwnershipIsPerSchema(t *testing.T) {
	postgresOnly(t)
	ctx := context.Background()
	one, _ := openTest(t)
	other, _ := openTest(t)
	a := openOwnership(t, one, "10.0.0.1:9090")
	b := openOwnership(t, other, "10.0.0.2:9090")
	for _, o := range []*Ownership{a, b} {
		if got, err := o.TryOwn(ctx, "alice"); err != nil || !got {
			t.Fatalf("alice of one schema is taken by the other's: %v, %v", got, err)
		}
	}
}

func TestOwnershipNeedsASharedStore(t *testing.T) {
	if testPG != nil {
		t.Skip("SQLite only")
	}
	s, _ := openTest(t)
	if _, err := s.OpenOwnership(context.Background(), "10.0.0.1:9090"); !errors.Is(err, ErrNotShared) {
		t.Errorf("ownership on SQLite: %v, want ErrNotShared", err)
	}
}

func TestRelayKeyIsOneForEveryProcess(t *testing.T) {
	ctx := context.Background()
	s, db := openTest(t)
	first, err := s.RelayKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	again, err := openAt(t, db).RelayKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Equal(again) {
		t.Error("another process got another relay key")
	}
	value, _, _ := s.Setting(ctx, relayKeySetting)
	stored, err := base64.StdEncoding.DecodeString(value)
	if err != nil || bytes.Contains(stored, first.Seed()) || strings.Contains(value, base64.StdEncoding.EncodeToString(first.Seed())) {
		t.Errorf("the stored key is not sealed: %q (%v)", value, err)
	}
	if _, err := s.sealer.Open(stored, relayKeySetting); err != nil {
		t.Errorf("the stored key does not open with the store's seal key: %v", err)
	}
}
