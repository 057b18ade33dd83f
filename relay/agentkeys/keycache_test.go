package agentkeys_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/store"
)

func TestCachedKeyRevokedThroughTheRelayIsRefusedAtOnce(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	now := time.Now()
	keys := &agentkeys.Keys{Store: st, Now: func() time.Time { return now }}
	res, err := keys.CreateKey(ctx, "ann", wireArgs("bot"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Authenticate(ctx, res.Secret); err != nil { // now cached
		t.Fatal(err)
	}
	if err := keys.RevokeKey(ctx, "ann", res.Key.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Authenticate(ctx, res.Secret); !errors.Is(err, agentkeys.ErrUnauthorized) {
		t.Errorf("a cached key revoked through the relay authenticated: %v", err)
	}
}

// cachedKey returns keys whose clock is *now, holding in their cache a key
// of ann's (k, with its secret), and their store.
func cachedKey(t *testing.T) (keys *agentkeys.Keys, now *time.Time, st *store.Store, k store.AgentKey, secret string) {
	t.Helper()
	st = openStore(t)
	clock := time.Now()
	keys = &agentkeys.Keys{Store: st, Now: func() time.Time { return clock }}
	k, secret = mustKey(t, st, store.NewAgentKey{User: "ann", Name: "bot", AllServers: true})
	if _, err := keys.Authenticate(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	return keys, &clock, st, k, secret
}

func TestCachedKeyRevokedElsewhereIsRefusedWithinTheTTL(t *testing.T) {
	ctx := context.Background()
	keys, now, st, k, secret := cachedKey(t)
	// Another process (the command line) revokes it in the store.
	if err := st.RevokeAgentKey(ctx, "ann", k.ID); err != nil {
		t.Fatal(err)
	}
	*now = now.Add(agentkeys.KeyCacheTTL)
	if _, err := keys.Authenticate(ctx, secret); !errors.Is(err, agentkeys.ErrUnauthorized) {
		t.Errorf("a key revoked elsewhere authenticated %v later: %v", agentkeys.KeyCacheTTL, err)
	}
}

func TestCachedKeyIsRefusedOnceTheWatchSaysItClosed(t *testing.T) {
	ctx := context.Background()
	keys, _, st, k, secret := cachedKey(t)
	if err := st.RevokeAgentKey(ctx, "ann", k.ID); err != nil {
		t.Fatal(err)
	}
	keys.Closed(k.ID) // what the relay's watch of its data directory does
	if _, err := keys.Authenticate(ctx, secret); !errors.Is(err, agentkeys.ErrUnauthorized) {
		t.Errorf("a key the watch closed authenticated from the cache: %v", err)
	}
}

func TestCachedKeyStillChecksTheSecretAndExpiry(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	now := time.Now()
	keys := &agentkeys.Keys{Store: st, Now: func() time.Time { return now }}
	_, secret := mustKey(t, st, store.NewAgentKey{User: "ann", Name: "bot", AllServers: true, Expires: now.Add(time.Second / 2)})
	if _, err := keys.Authenticate(ctx, secret); err != nil {
		t.Fatal(err)
	}
	wrong := secret[:len(secret)-4] + "AAAA"
	if wrong == secret {
		wrong = secret[:len(secret)-4] + "BBBB"
	}
	if _, err := keys.Authenticate(ctx, wrong); !errors.Is(err, agentkeys.ErrUnauthorized) {
		t.Errorf("a wrong secret under a cached id authenticated: %v", err)
	}
	now = now.Add(time.Second / 2)
	if _, err := keys.Authenticate(ctx, secret); !errors.Is(err, agentkeys.ErrUnauthorized) {
		t.Errorf("a cached key past its expiry authenticated: %v", err)
	}
}
