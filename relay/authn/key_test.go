package authn_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/authn"
)

func TestLoadOrCreateKeyCreatesPrivateFileAndReusesIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys", "relay.pem")
	first, err := authn.LoadOrCreateKey(path)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o600 {
		t.Errorf("key file mode = %o, want 600", got)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if block, _ := pem.Decode(data); block == nil || block.Type != "PRIVATE KEY" {
		t.Errorf("key file is not a PKCS#8 PEM block")
	}

	second, err := authn.LoadOrCreateKey(path)
	if err != nil {
		t.Fatalf("reload: %v", err)
	}
	if !first.Equal(second) {
		t.Error("second start produced a different key")
	}
}

func TestLoadOrCreateKeyRefusesKeyOpenToOthers(t *testing.T) {
	for _, mode := range []os.FileMode{0o640, 0o604, 0o660} {
		path := filepath.Join(t.TempDir(), "relay.pem")
		if _, err := authn.LoadOrCreateKey(path); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		_, err := authn.LoadOrCreateKey(path)
		if err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("mode %o: error = %v, want a refusal telling to chmod 600", mode, err)
		}
	}
}

func TestLoadOrCreateKeyRefusesOtherKeys(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(rsaKey)
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string][]byte{
		"rsa key":   pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
		"not pem":   []byte("hello"),
		"empty":     nil,
		"wrong pem": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}),
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, "relay.pem", data)
			if _, err := authn.LoadOrCreateKey(path); err == nil {
				t.Fatal("accepted")
			}
			after, err := os.ReadFile(path)
			if err != nil || string(after) != string(data) {
				t.Error("refused key file was changed")
			}
		})
	}
}
