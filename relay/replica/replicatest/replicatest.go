// Package replicatest helps run replicas (relay/replica) outside
// production, in the end-to-end tests and the bench: the seal key they
// share, a look at which replica owns a user, and replicas as processes of
// the switchboard command, to kill.
package replicatest

import (
	"context"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// SealKey is a seal key (base64 of 32 bytes) for replicas on a throwaway
// store: give it to each, and to whatever else opens the store, as
// $SWITCHBOARD_SEAL_KEY (store.SealKeyEnv).
const SealKey = "bXktc2VhbC1rZXktMzItYnl0ZXMtbG9uZy4uLi4uLi4="

// lookerAddr names the PostgreSQL connection Owner looks through; it owns
// nobody.
const lookerAddr = "replicatest:0"

// OwnerOf is Owner for a test, which it fails when PostgreSQL cannot say.
func OwnerOf(t testing.TB, st *store.Store, user string) string {
	t.Helper()
	addr, err := Owner(context.Background(), st, user)
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// Owner returns the internal address of the replica that owns user, as
// PostgreSQL's locks say; "" when nobody does.
func Owner(ctx context.Context, st *store.Store, user string) (string, error) {
	o, err := st.OpenOwnership(ctx, lookerAddr)
	if err != nil {
		return "", err
	}
	defer o.Close()
	addr, _, err := o.OwnerOf(ctx, user)
	return addr, err
}
