// Command compress writes the precompressed forms of a file next to it:
// FILE.br (brotli, best quality) and FILE.gz (gzip, best compression), which
// the relay serves to browsers that accept them, and last FILE.sha256, the
// hex SHA-256 of FILE, by which the relay knows the two match FILE.
//
//	go run ./static/internal/compress static/dist/app.wasm
package main

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/andybalholm/brotli"
)

// filePerm is the mode of the files written, like the file compressed.
const filePerm = 0o644

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: compress FILE")
		os.Exit(2)
	}
	if err := compressAll(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "compress:", err)
		os.Exit(1)
	}
}

func compressAll(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	if err := write(path+".br", raw, func(w io.Writer) io.WriteCloser {
		return brotli.NewWriterLevel(w, brotli.BestCompression)
	}); err != nil {
		return err
	}
	if err := write(path+".gz", raw, func(w io.Writer) io.WriteCloser {
		zw, _ := gzip.NewWriterLevel(w, gzip.BestCompression) // the level is valid
		return zw
	}); err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	return write(path+".sha256", []byte(hex.EncodeToString(sum[:])+"\n"), func(w io.Writer) io.WriteCloser {
		return nopCloser{w}
	})
}

// nopCloser writes through unchanged.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// write compresses raw into path through a temporary file, so a failed run
// never leaves a truncated file the relay would serve.
func write(path string, raw []byte, newWriter func(io.Writer) io.WriteCloser) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".compress-*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(filePerm); err != nil {
		tmp.Close()
		return fmt.Errorf("chmod %s: %w", path, err)
	}
	zw := newWriter(tmp)
	if _, err := zw.Write(raw); err != nil {
		tmp.Close()
		return fmt.Errorf("compress %s: %w", path, err)
	}
	if err := zw.Close(); err != nil {
		tmp.Close()
		return fmt.Errorf("compress %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename to %s: %w", path, err)
	}
	return nil
}
