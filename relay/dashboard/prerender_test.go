package dashboard

import (
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// signedIn is a StateFunc that knows one session, by its Authorization header.
func signedIn(servers ...wire.Server) StateFunc {
	return func(r *http.Request) (wire.Snapshot, bool) {
		if r.Header.Get("Authorization") != "Bearer ok" {
			return wire.Snapshot{}, false
		}
		return wire.Snapshot{User: "alice", Servers: servers}, true
	}
}

func TestPagePrerendersTheSignedInPersonsServers(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM"), State: signedIn(
		wire.Server{ID: "s1", Name: "Files <b>bold</b>", URL: "http://127.0.0.1:3001/mcp", State: wire.StateReady},
	)})
	w := get(h, "/", "Authorization", "Bearer ok")
	if w.Code != http.StatusOK {
		t.Fatalf("status %d", w.Code)
	}
	body := w.Body.String()
	if !strings.Contains(body, `data-server-id="s1"`) || !strings.Contains(body, `data-state="ready"`) {
		t.Errorf("the page does not show server s1 ready:\n%s", body)
	}
	if strings.Contains(body, ">Files <b>") || !strings.Contains(body, ">Files &lt;b&gt;bold&lt;/b&gt;<") {
		t.Errorf("the server's name is not shown as text:\n%s", body)
	}
	if got := w.Header().Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", got)
	}
	root := regexp.MustCompile(`<div[^>]*id="switchboard"[^>]*>`).FindString(body) // go-app writes attributes in any order
	if !regexp.MustCompile(`\binert\b`).MatchString(root) {
		t.Errorf("the prerendered page can be typed into before the wasm replaces it:\n%.1500s", body)
	}
	if got := w.Header().Get("ETag"); got != "" {
		t.Errorf("a page with a state has ETag %q", got)
	}
}

func TestPageWithAStateIsNeverNotModified(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM"), State: signedIn()})
	etag := get(h, "/").Header().Get("ETag")
	if etag == "" {
		t.Fatal("the page without a state has no ETag")
	}
	if w := get(h, "/", "If-None-Match", etag); w.Code != http.StatusNotModified {
		t.Errorf("the page without a state: status %d for its ETag, want 304", w.Code)
	}
	if w := get(h, "/", "If-None-Match", etag, "Authorization", "Bearer ok"); w.Code != http.StatusOK {
		t.Errorf("the page with a state: status %d for the build's ETag, want 200", w.Code)
	}
}

func TestPageWithoutASessionShowsNoServers(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM"), State: signedIn(wire.Server{ID: "s1", Name: "Files", State: wire.StateReady})})
	w := get(h, "/", "Authorization", "Bearer wrong")
	if strings.Contains(w.Body.String(), `data-server-id="s1"`) {
		t.Errorf("a request without a session got the person's servers")
	}
	if got := w.Header().Get("Cache-Control"); got != "no-cache" {
		t.Errorf("Cache-Control %q, want go-app's no-cache", got)
	}
}

func TestServiceWorkerLeavesPagesToTheRelay(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM")})
	js := get(h, "/app-worker.js").Body.String()
	for _, want := range []string{`.filter((url) => url !== "/")`, `event.request.mode === "navigate"`} {
		if !strings.Contains(js, want) {
			t.Errorf("app-worker.js lacks %s:\n%s", want, js)
		}
	}
}

func TestPrerenderedAttributesCannotBeBrokenOutOf(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM"), State: signedIn(
		wire.Server{ID: "s1", Name: `x" onmouseover="alert(1)" a="`, URL: "http://127.0.0.1:3001/mcp", State: wire.StateFailed, Error: `bad "quote"><meta http-equiv="refresh" content="0;url=https://example.com">`},
	)})
	body := get(h, "/", "Authorization", "Bearer ok").Body.String()
	for _, bad := range []string{`onmouseover="alert`, `<meta http-equiv`, `\"`} {
		if strings.Contains(body, bad) {
			t.Errorf("the page contains %s:\n%s", bad, body)
		}
	}
	if !strings.Contains(body, `data-server-name="x' onmouseover='alert(1)' a='"`) {
		t.Errorf("the server's name is not one attribute value:\n%s", body)
	}
}

func TestPrerenderedPageIsCompressedWhenTheBrowserAccepts(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM"), State: signedIn(
		wire.Server{ID: "s1", Name: "Files", URL: "http://127.0.0.1:3001/mcp", State: wire.StateReady},
	)})
	w := get(h, "/", "Authorization", "Bearer ok", "Accept-Encoding", "gzip, br")
	if got := w.Header().Get("Content-Encoding"); got != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", got)
	}
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `data-server-id="s1"`) {
		t.Errorf("the decompressed page does not show server s1:\n%s", body)
	}
	if got := w.Header().Get("Content-Length"); got != "" {
		t.Errorf("Content-Length %s of the uncompressed page sent with the compressed one", got)
	}
}

func TestPageWithoutASessionNeverShowsAnotherPersonsServers(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM"), EmbedOrigins: []string{"https://app.example"},
		State: signedIn(wire.Server{ID: "s1", Name: "Files", State: wire.StateReady})})
	var wg sync.WaitGroup
	leaked := make(chan string, 1)
	for i := range 300 {
		wg.Go(func() {
			path := "/"
			switch i % 3 {
			case 0:
				get(h, "/", "Authorization", "Bearer ok")
				return
			case 2: // the embed page, which anyone may ask for
				path = embedQuery + "https://app.example"
			}
			if body := get(h, path).Body.String(); strings.Contains(body, `data-server-id="s1"`) || strings.Contains(body, ">Files<") {
				select {
				case leaked <- body:
				default:
				}
			}
		})
	}
	wg.Wait()
	select {
	case body := <-leaked:
		t.Errorf("a page without a session showed the signed-in person's server:\n%.2000s", body)
	default:
	}
}
