package apps

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

const (
	testApps  = "http://localhost:9001"
	testHost  = "http://127.0.0.1:8080"
	testRelay = "http://127.0.0.1:8080"
)

func newTestSandbox(t *testing.T) http.Handler {
	t.Helper()
	h, err := NewSandbox(SandboxConfig{Origin: testApps, Hosts: []string{testHost}, Refused: []string{testRelay, "https://relay.example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func get(t *testing.T, h http.Handler, target string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
	return w
}

func TestSandboxHeaders(t *testing.T) {
	h := newTestSandbox(t)
	u := wire.AppSandboxURL("", testHost, wire.AppCSP{
		ConnectDomains:  []string{"http://127.0.0.1:7000", "wss://*.example.org"},
		ResourceDomains: []string{"https://cdn.example.net"},
	}, wire.AppPermissions{Camera: true})
	w := get(t, h, u)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	want := map[string]string{
		"Content-Security-Policy": "default-src 'none'; " +
			"script-src 'self' 'unsafe-inline' https://cdn.example.net; " +
			"style-src 'self' 'unsafe-inline' https://cdn.example.net; " +
			"connect-src http://127.0.0.1:7000 wss://*.example.org; " +
			"img-src 'self' data: https://cdn.example.net; " +
			"font-src 'self' https://cdn.example.net; " +
			"media-src 'self' data: https://cdn.example.net; " +
			"frame-src 'none'; object-src 'none'; base-uri 'self'; " +
			"frame-ancestors " + testHost,
		"Permissions-Policy":     "camera=*, microphone=(), geolocation=(), clipboard-write=()",
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
		"Cache-Control":          "no-store",
		"Content-Type":           "text/html; charset=utf-8",
	}
	for k, v := range want {
		if got := w.Header().Get(k); got != v {
			t.Errorf("%s:\n got %q\nwant %q", k, got, v)
		}
	}
	if !strings.Contains(w.Body.String(), `<script src="/sandbox.js">`) {
		t.Errorf("the page does not load its script: %s", w.Body)
	}
}

func TestSandboxNothingDeclared(t *testing.T) {
	w := get(t, newTestSandbox(t), wire.AppSandboxURL("", testHost, wire.AppCSP{}, wire.AppPermissions{}))
	csp := w.Header().Get("Content-Security-Policy")
	for _, part := range []string{"connect-src 'none'", "frame-src 'none'", "base-uri 'self'", "script-src 'self' 'unsafe-inline';"} {
		if !strings.Contains(csp, part) {
			t.Errorf("CSP %q lacks %q", csp, part)
		}
	}
	if got := w.Header().Get("Permissions-Policy"); got != "camera=(), microphone=(), geolocation=(), clipboard-write=()" {
		t.Errorf("Permissions-Policy %q", got)
	}
}

func TestSandboxRefuses(t *testing.T) {
	h := newTestSandbox(t)
	ok := url.Values{wire.AppQueryHost: {testHost}}
	with := func(k, v string) string {
		q := url.Values{}
		for kk, vv := range ok {
			q[kk] = vv
		}
		q.Add(k, v)
		return wire.AppSandboxPath + "?" + q.Encode()
	}
	for name, target := range map[string]string{
		"no host":          wire.AppSandboxPath,
		"other host":       wire.AppSandboxPath + "?host=" + url.QueryEscape("http://evil.example"),
		"two hosts":        wire.AppSandboxPath + "?host=" + url.QueryEscape(testHost) + "&host=" + url.QueryEscape(testHost),
		"path":             with(wire.AppQueryConnect, "https://a.example/x"),
		"quote":            with(wire.AppQueryConnect, "https://a.example'"),
		"space":            with(wire.AppQueryConnect, "https://a.example https://b.example"),
		"semicolon":        with(wire.AppQueryConnect, "https://a.example;script-src *"),
		"comma":            with(wire.AppQueryResource, "https://a.example,https://b.example"),
		"keyword":          with(wire.AppQueryConnect, "'self'"),
		"star":             with(wire.AppQueryConnect, "*"),
		"scheme":           with(wire.AppQueryFrame, "javascript://a.example"),
		"data":             with(wire.AppQueryResource, "data:"),
		"no scheme":        with(wire.AppQueryConnect, "a.example"),
		"mid wildcard":     with(wire.AppQueryConnect, "https://a.*.example"),
		"bad port":         with(wire.AppQueryConnect, "https://a.example:80x"),
		"relay":            with(wire.AppQueryConnect, testRelay),
		"relay ws":         with(wire.AppQueryConnect, "ws://127.0.0.1:8080"),
		"relay wildcard":   with(wire.AppQueryConnect, "https://*.example.com"),
		"apps origin":      with(wire.AppQueryResource, testApps),
		"apps origin caps": with(wire.AppQueryResource, "HTTP://LOCALHOST:9001"),
		"allow":            with(wire.AppQueryAllow, "usb"),
		"unknown key":      with("script", "x"),
	} {
		w := get(t, h, target)
		if w.Code != http.StatusBadRequest {
			t.Errorf("%s (%s): status %d", name, target, w.Code)
			continue
		}
		if w.Header().Get("Content-Security-Policy") != "" || !strings.HasPrefix(w.Body.String(), "bad sandbox request: ") {
			t.Errorf("%s: answer %q with CSP %q", name, w.Body, w.Header().Get("Content-Security-Policy"))
		}
	}
	var many []string
	for range maxDeclared + 1 {
		many = append(many, "https://a.example")
	}
	if w := get(t, h, wire.AppSandboxURL("", testHost, wire.AppCSP{ConnectDomains: many}, wire.AppPermissions{})); w.Code != http.StatusBadRequest {
		t.Errorf("too many domains: status %d", w.Code)
	}
}

func TestSandboxOtherPaths(t *testing.T) {
	h := newTestSandbox(t)
	for _, p := range []string{"/", "/sandbox/", "/index.html", "/ws", "/sandbox.js.map"} {
		if w := get(t, h, p); w.Code != http.StatusNotFound {
			t.Errorf("%s: status %d", p, w.Code)
		}
	}
	w := get(t, h, ScriptPath)
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "text/javascript; charset=utf-8" || !strings.Contains(w.Body.String(), "sandbox-proxy-ready") {
		t.Errorf("script: status %d, type %q", w.Code, w.Header().Get("Content-Type"))
	}
	req := httptest.NewRequest(http.MethodPost, wire.AppSandboxPath+"?host="+url.QueryEscape(testHost), nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code == http.StatusOK {
		t.Errorf("POST answered 200")
	}
}

func TestCheckDomainAccepts(t *testing.T) {
	own := []origin{{scheme: "http", host: "127.0.0.1", port: "8080"}}
	for in, want := range map[string]string{
		"https://api.example.com":   "https://api.example.com",
		"HTTPS://API.Example.com":   "https://api.example.com",
		"wss://*.example.org:8443":  "wss://*.example.org:8443",
		"http://127.0.0.1:7000":     "http://127.0.0.1:7000",
		"http://[::1]:7000":         "http://[::1]:7000",
		"http://127.0.0.1":          "http://127.0.0.1",
		"ws://localhost:8080":       "ws://localhost:8080",
		"https://127.0.0.1:8080":    "",
		"http://127.0.0.1:8080":     "",
		"http://127.0.0.1:8080/":    "",
		"https://user@a.example":    "",
		"https://a.example?x":       "",
		"https://a.example#x":       "",
		"https://a.example\n":       "",
		"https://":                  "",
		"https://*.":                "",
		"https://a..example":        "",
		"https://[::1":              "",
		"https://[::1]x":            "",
		"https://a.example:":        "",
		"https://a.example:123456":  "",
		"https://ex\u00e4mple.com":  "",
		"https://*.*.example.com":   "",
		"https://a.example:443 foo": "",
	} {
		got, err := checkDomain(in, own)
		if want == "" {
			if err == nil {
				t.Errorf("%q accepted as %q", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%q: got %q, %v; want %q", in, got, err, want)
		}
	}
}
