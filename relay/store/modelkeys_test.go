package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// testModelKey is a key the tests look for in the database files.
const testModelKey = "sk-model-KKKK-5555"

func TestModelKeysAreSealedPerUserAndModel(t *testing.T) {
	ctx := context.Background()
	s, dir := openTemp(t)
	keys := s.ModelKeys(testSealer(t, 1))
	if k, err := keys.Get(ctx, "ann", "m1"); k != "" || err != nil {
		t.Errorf("Get before Set = %q, %v; want none", k, err)
	}
	must(t, keys.Set(ctx, "ann", "m2", "other-key"))
	must(t, keys.Set(ctx, "ann", "m1", "first-key"))
	must(t, keys.Set(ctx, "ann", "m1", testModelKey))
	if k, err := keys.Get(ctx, "ann", "m1"); k != testModelKey || err != nil {
		t.Errorf("Get = %q, %v; want the key set last", k, err)
	}
	if names, err := keys.Names(ctx, "ann"); err != nil || !slices.Equal(names, []string{"m1", "m2"}) {
		t.Errorf("Names = %v, %v; want [m1 m2]", names, err)
	}
	assertNotInFiles(t, dir, testModelKey, "other-key")

	if k, err := keys.Get(ctx, "bob", "m1"); k != "" || err != nil {
		t.Errorf("bob gets ann's key: %q, %v", k, err)
	}
	if names, err := keys.Names(ctx, "bob"); err != nil || len(names) != 0 {
		t.Errorf("bob's Names = %v, %v; want none", names, err)
	}
	if _, err := s.ModelKeys(testSealer(t, 2)).Get(ctx, "ann", "m1"); !errors.Is(err, store.ErrUnseal) {
		t.Errorf("Get with another seal key: %v, want ErrUnseal", err)
	}

	must(t, keys.Set(ctx, "ann", "m2", ""))
	if k, err := keys.Get(ctx, "ann", "m2"); k != "" || err != nil {
		t.Errorf("Get after an empty Set = %q, %v; want none", k, err)
	}
	if names, _ := keys.Names(ctx, "ann"); !slices.Equal(names, []string{"m1"}) {
		t.Errorf("Names after removing m2 = %v", names)
	}
	if err := keys.Set(ctx, "", "m1", "k"); err == nil {
		t.Error("Set without a user succeeded")
	}
}
