package dashboard

import (
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/web"
)

const embedQuery = web.EmbedPath + "?view=questions&host="

// frameAncestors returns the frame-ancestors sources of a CSP.
func frameAncestors(csp string) string {
	for _, d := range strings.Split(csp, ";") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(d), "frame-ancestors "); ok {
			return rest
		}
	}
	return ""
}

func TestEmbedIsFramedOnlyByTheListedSites(t *testing.T) {
	listed := []string{"https://app.example", "http://localhost:3000"}
	h := newHandler(t, Config{Static: builtFS("WASM"), EmbedOrigins: listed})
	w := get(h, embedQuery+"https://app.example", "Referer", "https://app.example/inbox")
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	csp := w.Header().Get("Content-Security-Policy")
	if got := frameAncestors(csp); got != strings.Join(listed, " ") {
		t.Errorf("frame-ancestors %q, want exactly %q", got, strings.Join(listed, " "))
	}
	if !strings.Contains(csp, "worker-src 'none'") || strings.Contains(csp, "worker-src 'self'") {
		t.Errorf("the embed may run a service worker: %s", csp)
	}
	if got := frameAncestors(get(h, "/").Header().Get("Content-Security-Policy")); got != "'self'" {
		t.Errorf("the dashboard itself has frame-ancestors %q, want 'self'", got)
	}
}

func TestEmbedRefusesWithAReasonTheFrameShows(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM"), EmbedOrigins: []string{"https://app.example"}})
	off := newHandler(t, Config{Static: builtFS("WASM")})
	cases := []struct {
		name    string
		h       http.Handler
		path    string
		referer string
		says    string
	}{
		{"unlisted site", h, embedQuery + "https://evil.example", "", "https://evil.example is not allowed"},
		{"no site named", h, web.EmbedPath + "?view=servers", "", "did not say which site"},
		{"referer contradicts", h, embedQuery + "https://app.example", "https://evil.example/page", "not the site it claims"},
		{"embedding off", off, embedQuery + "https://app.example", "", "does not allow embedding"},
	}
	for _, c := range cases {
		w := get(c.h, c.path, "Referer", c.referer)
		if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), c.says) {
			t.Errorf("%s: status %d, body %q; want 403 saying %q", c.name, w.Code, w.Body, c.says)
		}
		csp := w.Header().Get("Content-Security-Policy")
		if frameAncestors(csp) != "*" || !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: the refusal's policy %q must let it show in any frame and run nothing", c.name, csp)
		}
		if strings.Contains(w.Body.String(), "<script") {
			t.Errorf("%s: the refusal page has a script", c.name)
		}
	}
	w := get(h, embedQuery+"%3Cb%3Ex%3C%2Fb%3E")
	if strings.Contains(w.Body.String(), "<b>x</b>") {
		t.Errorf("the refusal page renders the named site as HTML: %s", w.Body)
	}
}

func TestEmbedOriginsThatWouldBreakTheHeaderAreRefused(t *testing.T) {
	for _, o := range []string{"https://a.example; script-src *", "https://a.example/path", "*", "javascript:x", "https://a.example 'unsafe-inline'"} {
		if _, err := New(Config{Static: builtFS("WASM"), EmbedOrigins: []string{o}}); err == nil {
			t.Errorf("embed origin %q was accepted", o)
		}
	}
}

func TestEmbedScriptIsServedToOtherSites(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM")})
	w := get(h, web.EmbedScriptPath)
	if w.Code != http.StatusOK || w.Body.String() != "/* embed */" {
		t.Fatalf("status %d, body %q", w.Code, w.Body)
	}
	if got := w.Header().Get("Cross-Origin-Resource-Policy"); got != "cross-origin" {
		t.Errorf("Cross-Origin-Resource-Policy %q, want cross-origin", got)
	}
	if got := w.Header().Get("Content-Type"); !strings.HasPrefix(got, "text/javascript") {
		t.Errorf("Content-Type %q", got)
	}
}

func TestServiceWorkerServesFramedPagesFromTheNetwork(t *testing.T) {
	h := newHandler(t, Config{Static: builtFS("WASM")})
	body := get(h, "/app-worker.js").Body.String()
	if strings.Contains(body, workerFetch) || !strings.Contains(body, `client.frameType !== "top-level"`) {
		t.Fatalf("the worker's fetch handler was not replaced:\n%s", body)
	}
}
