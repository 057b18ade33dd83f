package store

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"strings"
	"testing"
)

// A process whose seal key is not the store's (another data directory,
// another $SWITCHBOARD_SEAL_KEY) is refused, and writes nothing; one with
// the store's key opens it.
func TestAProcessWithAnotherSealKeyIsRefused(t *testing.T) {
	ctx := context.Background()
	s, db := openTest(t)
	if err := s.SetSetting(ctx, "x", "1"); err != nil {
		t.Fatal(err)
	}
	t.Setenv(SealKeyEnv, base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)))
	other, err := db.open(ctx)
	if err == nil {
		other.Close()
		t.Fatal("a process with another seal key opened the store")
	}
	if !strings.Contains(err.Error(), "seal key") || !strings.Contains(err.Error(), SealKeyEnv) {
		t.Errorf("the refusal reads %q", err)
	}
	os.Unsetenv(SealKeyEnv) // t.Setenv puts it back at the end
	if v, _, err := openAt(t, db).Setting(ctx, "x"); err != nil || v != "1" {
		t.Errorf("with the store's key: %q, %v", v, err)
	}
}
