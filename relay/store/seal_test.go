package store_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

func testSealer(t *testing.T, fill byte) *store.Sealer {
	t.Helper()
	s, err := store.NewSealer(bytes.Repeat([]byte{fill}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSealRoundTripsAndHidesThePlaintext(t *testing.T) {
	s := testSealer(t, 1)
	plain := []byte("refresh-token-value")
	sealed := s.Seal(plain, "ctx")
	if bytes.Contains(sealed, plain) {
		t.Fatal("sealed value contains the plaintext")
	}
	if again := s.Seal(plain, "ctx"); bytes.Equal(again, sealed) {
		t.Error("sealing twice gave the same bytes; nonces repeat")
	}
	got, err := s.Open(sealed, "ctx")
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("Open = %q, %v", got, err)
	}
}

func TestOpenRefusesTamperingWrongKeyAndWrongContext(t *testing.T) {
	s := testSealer(t, 1)
	sealed := s.Seal([]byte("secret"), "oauth_tokens\x00ann\x00s1")
	for name, tc := range map[string]struct {
		sealer  *store.Sealer
		sealed  []byte
		context string
	}{
		"flipped ciphertext byte": {s, flip(sealed, len(sealed)-1), "oauth_tokens\x00ann\x00s1"},
		"flipped nonce byte":      {s, flip(sealed, 2), "oauth_tokens\x00ann\x00s1"},
		"unknown version":         {s, flip(sealed, 0), "oauth_tokens\x00ann\x00s1"},
		"truncated":               {s, sealed[:10], "oauth_tokens\x00ann\x00s1"},
		"empty":                   {s, nil, "oauth_tokens\x00ann\x00s1"},
		"wrong key":               {testSealer(t, 2), sealed, "oauth_tokens\x00ann\x00s1"},
		"moved to another record": {s, sealed, "oauth_tokens\x00bob\x00s1"},
	} {
		if got, err := tc.sealer.Open(tc.sealed, tc.context); !errors.Is(err, store.ErrUnseal) {
			t.Errorf("%s: Open = %q, %v; want ErrUnseal", name, got, err)
		}
	}
}

func flip(b []byte, i int) []byte {
	out := bytes.Clone(b)
	out[i] ^= 0x01
	return out
}

func TestLoadSealerCreatesAPrivateKeyFileAndReusesIt(t *testing.T) {
	t.Setenv(store.SealKeyEnv, "")
	os.Unsetenv(store.SealKeyEnv)
	dir := filepath.Join(t.TempDir(), "data")
	first, err := store.LoadSealer(dir)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, store.SealKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %o, want 600", info.Mode().Perm())
	}
	second, err := store.LoadSealer(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := second.Open(first.Seal([]byte("x"), "c"), "c"); err != nil || string(got) != "x" {
		t.Errorf("a reloaded key does not open what the first sealed: %q, %v", got, err)
	}
}

// Processes that start at once on a new directory all load, and share, the
// key one of them created.
func TestLoadSealerAtOnceAgreesOnOneKey(t *testing.T) {
	t.Setenv(store.SealKeyEnv, "")
	os.Unsetenv(store.SealKeyEnv)
	dir := filepath.Join(t.TempDir(), "data")
	sealers := make([]*store.Sealer, 8)
	errs := make([]error, len(sealers))
	var wg sync.WaitGroup
	for i := range sealers {
		wg.Go(func() { sealers[i], errs[i] = store.LoadSealer(dir) })
	}
	wg.Wait()
	for i, s := range sealers {
		if errs[i] != nil {
			t.Fatalf("process %d: %v", i, errs[i])
		}
		if got, err := s.Open(sealers[0].Seal([]byte("x"), "c"), "c"); err != nil || string(got) != "x" {
			t.Errorf("process %d has another key: %q, %v", i, got, err)
		}
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 1 {
		t.Errorf("the directory holds %v, want the key file alone", names)
	}
}

func TestLoadSealerRefusesAKeyFileOthersCanRead(t *testing.T) {
	t.Setenv(store.SealKeyEnv, "")
	os.Unsetenv(store.SealKeyEnv)
	dir := t.TempDir()
	path := filepath.Join(dir, store.SealKeyFile)
	must(t, os.WriteFile(path, []byte(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))), 0o644))
	must(t, os.Chmod(path, 0o644))
	if _, err := store.LoadSealer(dir); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("LoadSealer with a 0644 key file: %v, want a refusal", err)
	}
}

func TestLoadSealerTakesTheKeyFromTheEnvironment(t *testing.T) {
	key := bytes.Repeat([]byte{9}, 32)
	t.Setenv(store.SealKeyEnv, base64.StdEncoding.EncodeToString(key))
	dir := t.TempDir()
	s, err := store.LoadSealer(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, store.SealKeyFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a key file was created although the environment has the key: %v", err)
	}
	direct := testSealer(t, 9)
	if got, err := direct.Open(s.Seal([]byte("x"), "c"), "c"); err != nil || string(got) != "x" {
		t.Errorf("the environment key was not used: %q, %v", got, err)
	}
	for _, bad := range []string{"not base64!", base64.StdEncoding.EncodeToString([]byte("short"))} {
		t.Setenv(store.SealKeyEnv, bad)
		if _, err := store.LoadSealer(dir); err == nil {
			t.Errorf("LoadSealer with $%s=%q succeeded", store.SealKeyEnv, bad)
		}
	}
}
