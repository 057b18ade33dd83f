package dashboard

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/switchboard-mcp/switchboard/static"
)

// builtFS is a static tree as `make wasm` leaves it; wasm is app.wasm's content.
func builtFS(wasm string) fstest.MapFS {
	return fstest.MapFS{
		static.Stylesheet: {Data: []byte("body{}")},
		static.IconSVG:    {Data: []byte("<svg/>")},
		static.Icon:       {Data: []byte("png192")},
		static.IconLarge:  {Data: []byte("png512")},
		static.Wasm:       {Data: []byte(wasm)},
		static.WasmBrotli: {Data: []byte("br:" + wasm)},
		static.WasmGzip:   {Data: []byte("gz:" + wasm)},
		static.WasmSum:    {Data: []byte(sum(wasm) + "\n")},
		"dist/.gitkeep":   {Data: nil},

		// static/embed.js, served to host pages
		static.EmbedScript: {Data: []byte("/* embed */")},
	}
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func newHandler(t *testing.T, cfg Config) http.Handler {
	t.Helper()
	h, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return h
}

func get(h http.Handler, path string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestWasmIsServedInTheBestEncodingTheBrowserAccepts(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM")})
	cases := []struct {
		acceptEncoding string
		body, encoding string
	}{
		{"gzip, deflate, br, zstd", "br:WASM", "br"},
		{"br;q=1.0, gzip;q=0.8", "br:WASM", "br"},
		{"gzip, deflate", "gz:WASM", "gzip"},
		{"br;q=0, gzip", "gz:WASM", "gzip"},
		{"*", "br:WASM", "br"},
		{"*;q=0, gzip", "gz:WASM", "gzip"},
		{"identity", "WASM", ""},
		{"BR", "br:WASM", "br"},
		{"", "WASM", ""},
	}
	for _, c := range cases {
		w := get(h, "/web/app.wasm", "Accept-Encoding", c.acceptEncoding)
		if w.Code != http.StatusOK {
			t.Errorf("Accept-Encoding %q: status %d", c.acceptEncoding, w.Code)
			continue
		}
		if got := w.Body.String(); got != c.body {
			t.Errorf("Accept-Encoding %q: body %q, want %q", c.acceptEncoding, got, c.body)
		}
		if got := w.Header().Get("Content-Encoding"); got != c.encoding {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, want %q", c.acceptEncoding, got, c.encoding)
		}
		if got := w.Header().Get("Content-Type"); got != "application/wasm" {
			t.Errorf("Accept-Encoding %q: Content-Type %q", c.acceptEncoding, got)
		}
		if got := w.Header().Get("Vary"); got != "Accept-Encoding" {
			t.Errorf("Accept-Encoding %q: Vary %q", c.acceptEncoding, got)
		}
	}
}

func TestWasmETagDiffersPerEncodingAndRevalidates(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM")})
	br := get(h, "/web/app.wasm", "Accept-Encoding", "br").Header().Get("ETag")
	gz := get(h, "/web/app.wasm", "Accept-Encoding", "gzip").Header().Get("ETag")
	raw := get(h, "/web/app.wasm").Header().Get("ETag")
	if br == "" || br == gz || gz == raw || br == raw {
		t.Fatalf("ETags br=%s gz=%s raw=%s, want three different ones", br, gz, raw)
	}
	if w := get(h, "/web/app.wasm", "Accept-Encoding", "br", "If-None-Match", br); w.Code != http.StatusNotModified {
		t.Errorf("revalidation with the current ETag: status %d, want 304", w.Code)
	}
	other := newHandler(t, Config{Static: builtFS("WASM2")})
	if got := get(other, "/web/app.wasm", "Accept-Encoding", "br").Header().Get("ETag"); got == br {
		t.Error("a different app.wasm kept the same ETag")
	}
}

func TestWasmWithoutPrecompressedFilesIsServedRaw(t *testing.T) {
	fsys := builtFS("WASM")
	delete(fsys, static.WasmBrotli)
	delete(fsys, static.WasmGzip)
	w := get(newHandler(t, Config{Static: fsys}), "/web/app.wasm", "Accept-Encoding", "br, gzip")
	if w.Body.String() != "WASM" || w.Header().Get("Content-Encoding") != "" {
		t.Errorf("body %q encoding %q, want the raw file", w.Body.String(), w.Header().Get("Content-Encoding"))
	}
}

func TestStalePrecompressedFilesAreNotServed(t *testing.T) {
	fsys := builtFS("WASM")
	fsys[static.Wasm] = &fstest.MapFile{Data: []byte("NEWER WASM")} // rebuilt without compressing
	w := get(newHandler(t, Config{Static: fsys}), "/web/app.wasm", "Accept-Encoding", "br, gzip")
	if w.Body.String() != "NEWER WASM" || w.Header().Get("Content-Encoding") != "" {
		t.Errorf("body %q encoding %q, want the raw, newer file", w.Body.String(), w.Header().Get("Content-Encoding"))
	}
	delete(fsys, static.WasmSum)
	fsys[static.Wasm] = &fstest.MapFile{Data: []byte("WASM")}
	if got := get(newHandler(t, Config{Static: fsys}), "/web/app.wasm", "Accept-Encoding", "br").Body.String(); got != "WASM" {
		t.Errorf("without a checksum the compressed file was served: %q", got)
	}
}

func TestUnbuiltDashboardAnswers503WithTheFix(t *testing.T) {
	fsys := builtFS("")
	delete(fsys, static.Wasm)
	h := newHandler(t, Config{Static: fsys})
	for _, p := range []string{"/", "/web/app.wasm", "/app.js"} {
		w := get(h, p)
		if w.Code != http.StatusServiceUnavailable {
			t.Errorf("GET %s: status %d, want 503", p, w.Code)
		}
		if !strings.Contains(w.Body.String(), "dashboard not built: run make build") {
			t.Errorf("GET %s: body %q", p, w.Body.String())
		}
	}
}

func TestMissingStylesheetIsAnError(t *testing.T) {
	fsys := builtFS("WASM")
	delete(fsys, static.Stylesheet)
	if _, err := New(Config{Static: fsys}); err == nil || !strings.Contains(err.Error(), static.Stylesheet) {
		t.Errorf("New without the stylesheet: err = %v", err)
	}
}

func TestPageIsPrerenderedWithSecurityHeaders(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM")})
	w := get(h, "/")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /: status %d", w.Code)
	}
	body := w.Body.String()
	for _, want := range []string{"<title>Switchboard</title>", `id="relay-status"`, `id="server-list"`, "/web/switchboard.css", "/web/icons/icon.svg"} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(body, "raw.githubusercontent.com") {
		t.Error("page points at go-app's remote default icons")
	}
	csp := w.Header().Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self' 'wasm-unsafe-eval'", "frame-ancestors 'self'", "object-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "'unsafe-inline'") || strings.Contains(csp, "'unsafe-eval'") {
		t.Errorf("CSP %q allows inline code or eval", csp)
	}
	if w.Header().Get("X-Content-Type-Options") != "nosniff" || w.Header().Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("headers %v", w.Header())
	}
}

func TestFrameAncestorsAreConfigurable(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM"), FrameAncestors: "'self' https://host.example"})
	csp := get(h, "/").Header().Get("Content-Security-Policy")
	if !strings.HasSuffix(csp, "frame-ancestors 'self' https://host.example") {
		t.Errorf("CSP = %q", csp)
	}
	if _, err := New(Config{Static: builtFS("WASM"), FrameAncestors: "* ; script-src *"}); err == nil {
		t.Error("a frame-ancestors value that injects a directive was accepted")
	}
}

func TestVersionChangesWithTheBuild(t *testing.T) {
	version := func(wasm string) string {
		body := get(newHandler(t, Config{Static: builtFS(wasm)}), "/app.js").Body.String()
		i := strings.Index(body, `"GOAPP_VERSION":"`)
		if i < 0 {
			t.Fatalf("app.js has no version: %.200s", body)
		}
		v := body[i+len(`"GOAPP_VERSION":"`):]
		return v[:strings.Index(v, `"`)]
	}
	a, b := version("WASM"), version("WASM2")
	if a == "" || a == b {
		t.Errorf("versions %q and %q, want different ones", a, b)
	}
	if a != version("WASM") {
		t.Error("the same build got another version")
	}
}

func TestStaticFilesAreServedFromTheEmbeddedTree(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM")})
	cases := []struct{ path, body, contentType string }{
		{"/web/switchboard.css", "body{}", "text/css; charset=utf-8"},
		{"/web/icons/icon.svg", "<svg/>", "image/svg+xml"},
		{"/web/icons/icon-192.png", "png192", "image/png"},
	}
	for _, c := range cases {
		w := get(h, c.path)
		if w.Code != http.StatusOK || w.Body.String() != c.body || w.Header().Get("Content-Type") != c.contentType {
			t.Errorf("GET %s: %d %q %q", c.path, w.Code, w.Body.String(), w.Header().Get("Content-Type"))
		}
		if w.Header().Get("Content-Security-Policy") == "" {
			t.Errorf("GET %s: no CSP", c.path)
		}
	}
	for _, p := range []string{"/web/dist/app.wasm.br", "/web/../go.mod", "/robots.txt", "/app.wasm", "/nope"} {
		if w := get(h, p); w.Code != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", p, w.Code)
		}
	}
}

func TestGoAppScriptsAreServed(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM")})
	for _, p := range []string{"/app.js", "/wasm_exec.js", "/app-worker.js", "/manifest.webmanifest", "/app.css"} {
		w := get(h, p)
		if w.Code != http.StatusOK {
			t.Errorf("GET %s: status %d", p, w.Code)
		}
	}
	manifest, _ := io.ReadAll(get(h, "/manifest.webmanifest").Body)
	if !strings.Contains(string(manifest), "/web/icons/icon-512.png") {
		t.Errorf("manifest lacks the local icon: %s", manifest)
	}
	if !strings.Contains(get(h, "/app.js").Body.String(), `"/web/app.wasm"`) {
		t.Error("app.js does not load /web/app.wasm")
	}
}

func TestOnlyGetAndHeadAreAllowed(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM")})
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("x"))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /: status %d, want 405", w.Code)
	}
}
