package store

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Sealing facts.
const (
	// SealKeyEnv holds the sealing key, base64 of 32 bytes; it takes
	// precedence over the key file.
	SealKeyEnv = "SWITCHBOARD_SEAL_KEY"
	// SealKeyFile is the key file in the data directory, created on first
	// start with mode 0600.
	SealKeyFile = "seal.key"
	// sealKeyBytes is the AES-256 key size.
	sealKeyBytes = 32
	// sealKeyMode is the only mode a key file may have.
	sealKeyMode = 0o600
	// sealVersion is the first byte of every sealed value; a new format gets
	// a new version.
	sealVersion = 1
)

// ErrUnseal is returned when a sealed value cannot be opened: it was sealed
// with another key, for another record, or was tampered with.
var ErrUnseal = errors.New("sealed value cannot be opened (wrong key, moved or tampered)")

// Sealer encrypts secrets at rest with AES-256-GCM. A sealed value is bound
// to a context string (its table and owner), so a value copied into another
// record does not open. It is safe for concurrent use.
type Sealer struct {
	aead cipher.AEAD
}

// NewSealer returns a sealer for a 32-byte key.
func NewSealer(key []byte) (*Sealer, error) {
	if len(key) != sealKeyBytes {
		return nil, fmt.Errorf("seal key: %d bytes, want %d", len(key), sealKeyBytes)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("seal key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("seal key: %w", err)
	}
	return &Sealer{aead: aead}, nil
}

// LoadSealer returns the sealer of the relay: its key comes from
// $SWITCHBOARD_SEAL_KEY when set, otherwise from dir/seal.key, which is
// created (random, mode 0600) when missing. A key file readable by others is
// refused.
func LoadSealer(dir string) (*Sealer, error) {
	if v, ok := os.LookupEnv(SealKeyEnv); ok {
		key, err := decodeKey(v)
		if err != nil {
			return nil, fmt.Errorf("$%s: %w", SealKeyEnv, err)
		}
		return NewSealer(key)
	}
	path := filepath.Join(dir, SealKeyFile)
	key, err := readKeyFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		key, err = createKeyFile(dir, path)
	}
	if err != nil {
		return nil, err
	}
	return NewSealer(key)
}

// maxSealKeyFileBytes bounds what is read of a seal key file.
const maxSealKeyFileBytes = 1024

// readKeyFile reads a key file after checking that it is a regular file
// (the check is on the opened file, so a swapped path cannot slip past)
// that only its owner can read.
func readKeyFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat seal key: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("seal key %s is not a regular file", path)
	}
	if info.Mode().Perm()&^sealKeyMode != 0 {
		return nil, fmt.Errorf("seal key %s: mode %v lets others read it; chmod 600 it", path, info.Mode().Perm())
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxSealKeyFileBytes))
	if err != nil {
		return nil, fmt.Errorf("read seal key: %w", err)
	}
	key, err := decodeKey(string(raw))
	if err != nil {
		return nil, fmt.Errorf("seal key %s: %w", path, err)
	}
	return key, nil
}

// createKeyFile writes a fresh random key to a file of its own, then links
// it in as path, so that the key file is never seen half written; when
// another process linked its key first, it returns that key instead.
func createKeyFile(dir, path string) ([]byte, error) {
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	key := make([]byte, sealKeyBytes)
	rand.Read(key)
	f, err := os.CreateTemp(dir, SealKeyFile+".new-*") // mode 0600
	if err != nil {
		return nil, fmt.Errorf("create seal key: %w", err)
	}
	defer os.Remove(f.Name())
	_, werr := f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n")
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return nil, fmt.Errorf("write seal key: %w", err)
	}
	err = os.Link(f.Name(), path)
	if errors.Is(err, fs.ErrExist) {
		return readKeyFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("create seal key: %w", err)
	}
	return key, nil
}

// decodeKey reads base64 (standard or URL alphabet, padded or not) of 32 bytes.
func decodeKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if key, err := enc.DecodeString(s); err == nil {
			if len(key) != sealKeyBytes {
				return nil, fmt.Errorf("%d bytes, want %d", len(key), sealKeyBytes)
			}
			return key, nil
		}
	}
	return nil, errors.New("not base64")
}

// Seal encrypts plain for the record named by context.
func (s *Sealer) Seal(plain []byte, context string) []byte {
	n := s.aead.NonceSize()
	out := make([]byte, 1+n, 1+n+len(plain)+s.aead.Overhead())
	out[0] = sealVersion
	rand.Read(out[1:])
	return s.aead.Seal(out, out[1:], plain, []byte(context))
}

// Open decrypts a value sealed for context, or returns ErrUnseal.
func (s *Sealer) Open(sealed []byte, context string) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < 1+n+s.aead.Overhead() || sealed[0] != sealVersion {
		return nil, ErrUnseal
	}
	plain, err := s.aead.Open(nil, sealed[1:1+n], sealed[1+n:], []byte(context))
	if err != nil {
		return nil, ErrUnseal
	}
	return plain, nil
}
