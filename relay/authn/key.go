package authn

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

const (
	// keyFileMode is the only mode the relay key file may have.
	keyFileMode = 0o600
	// keyDirMode is used when the key's directory must be created.
	keyDirMode = 0o700
	// pemPrivateKey is the PEM block type of a PKCS#8 private key.
	pemPrivateKey = "PRIVATE KEY"
	// maxKeyFileBytes bounds what is read from a key file.
	maxKeyFileBytes = 64 << 10
)

// LoadOrCreateKey returns the relay's Ed25519 signing key from path, a PKCS#8
// PEM file. On first start it creates the file with mode 0600. It refuses a
// key file that group or others may read or write.
func LoadOrCreateKey(path string) (ed25519.PrivateKey, error) {
	key, err := loadKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	return createKey(path)
}

// loadKey reads an existing key file; the error wraps fs.ErrNotExist when
// there is none.
func loadKey(path string) (ed25519.PrivateKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open relay key: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat relay key: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("relay key %s is not a regular file", path)
	}
	if perm := info.Mode().Perm(); perm&^keyFileMode != 0 {
		return nil, fmt.Errorf("relay key %s has mode %04o, open to group or others; run: chmod 600 %s", path, perm, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFileBytes))
	if err != nil {
		return nil, fmt.Errorf("read relay key: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != pemPrivateKey {
		return nil, fmt.Errorf("relay key %s: no %q PEM block", path, pemPrivateKey)
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("relay key %s: parse PKCS#8: %w", path, err)
	}
	key, ok := parsed.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("relay key %s: %T is not an Ed25519 key", path, parsed)
	}
	return key, nil
}

// createKey writes a new key to path, never over an existing file: when
// another process created it first, that key is loaded instead.
func createKey(path string) (ed25519.PrivateKey, error) {
	if err := os.MkdirAll(filepath.Dir(path), keyDirMode); err != nil {
		return nil, fmt.Errorf("create relay key directory: %w", err)
	}
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate relay key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode relay key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, keyFileMode)
	if errors.Is(err, fs.ErrExist) {
		return loadKey(path)
	}
	if err != nil {
		return nil, fmt.Errorf("create relay key: %w", err)
	}
	err = pem.Encode(f, &pem.Block{Type: pemPrivateKey, Bytes: der})
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("write relay key: %w", err)
	}
	return key, nil
}
