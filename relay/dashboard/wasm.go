package dashboard

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/static"
)

// wasmPath is where go-app's loader fetches the app.
const wasmPath = "/web/app.wasm"

const wasmType = "application/wasm"

// wasmFiles are app.wasm and its precompressed forms; br and gz are empty
// when the build did not write them.
type wasmFiles struct {
	raw, br, gz asset
}

// readWasm reads app.wasm (an fs.ErrNotExist error when it was not built)
// and the .br and .gz files beside it, if they were made from this app.wasm.
func readWasm(files fs.FS) (wasmFiles, error) {
	raw, err := fs.ReadFile(files, static.Wasm)
	if err != nil {
		return wasmFiles{}, fmt.Errorf("dashboard: read %s: %w", static.Wasm, err)
	}
	hash := shortHash(raw)
	w := wasmFiles{raw: asset{body: raw, contentType: wasmType, etag: `"` + hash + `"`}}
	if !compressedMatch(files, raw) {
		return w, nil
	}
	for _, v := range []struct {
		file, encoding string
		dst            *asset
	}{
		{static.WasmBrotli, "br", &w.br},
		{static.WasmGzip, "gzip", &w.gz},
	} {
		b, err := fs.ReadFile(files, v.file)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return wasmFiles{}, fmt.Errorf("dashboard: read %s: %w", v.file, err)
		}
		*v.dst = asset{body: b, contentType: wasmType, encoding: v.encoding, etag: `"` + hash + "-" + v.encoding + `"`}
	}
	return w, nil
}

// serve answers with the smallest form the request accepts.
func (w wasmFiles) serve(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Add("Vary", "Accept-Encoding")
	ae := r.Header.Get("Accept-Encoding")
	switch {
	case w.br.body != nil && accepts(ae, "br"):
		w.br.serve(rw, r)
	case w.gz.body != nil && accepts(ae, "gzip"):
		w.gz.serve(rw, r)
	default:
		w.raw.serve(rw, r)
	}
}

// accepts reports whether an Accept-Encoding header allows coding: named, or
// covered by "*", with a quality above zero.
func accepts(header, coding string) bool {
	star := false
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		q := quality(params)
		switch name {
		case coding:
			return q > 0
		case "*":
			star = q > 0
		}
	}
	return star
}

// quality reads the q parameter of an Accept-Encoding element; absent or
// malformed means 1.
func quality(params string) float64 {
	for _, p := range strings.Split(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return 1
		}
		return q
	}
	return 1
}

// compressedMatch reports whether the precompressed files were made from
// raw: a build that rewrote app.wasm without them must not serve stale ones.
func compressedMatch(files fs.FS, raw []byte) bool {
	want, err := fs.ReadFile(files, static.WasmSum)
	if err != nil {
		return false
	}
	sum := sha256.Sum256(raw)
	return strings.TrimSpace(string(want)) == hex.EncodeToString(sum[:])
}
