package dashboard

import (
	"strings"
	"testing"
)

func TestAppsOriginIsFramedAndTold(t *testing.T) {
	const origin = "http://localhost:9001"
	off := get(newHandler(t, Config{Static: builtFS("WASM")}), "/").Header().Get("Content-Security-Policy")
	h := newHandler(t, Config{Static: builtFS("WASM"), AppsOrigin: origin})
	on := get(h, "/").Header().Get("Content-Security-Policy")
	if want := strings.Replace(off, "object-src ", "frame-src "+origin+"; object-src ", 1); on != want || on == off {
		t.Errorf("CSP with Apps:\n got %q\nwant %q", on, want)
	}
	if strings.Contains(off, "frame-src") {
		t.Errorf("CSP without Apps names frames: %q", off)
	}
	if js := get(h, "/app.js").Body.String(); !strings.Contains(js, AppsOriginEnv) || !strings.Contains(js, origin) {
		t.Errorf("app.js does not carry %s", AppsOriginEnv)
	}
	for _, bad := range []string{"localhost:9001", "http://localhost:9001/", "javascript://x", "http://a; script-src *", "http://*.example"} {
		if _, err := New(Config{Static: builtFS("WASM"), AppsOrigin: bad}); err == nil {
			t.Errorf("apps origin %q accepted", bad)
		}
	}
}

func TestVersionChangesWithTheAppsOrigin(t *testing.T) {
	version := func(origin string) string {
		body := get(newHandler(t, Config{Static: builtFS("WASM"), AppsOrigin: origin}), "/app.js").Body.String()
		i := strings.Index(body, `"GOAPP_VERSION":"`)
		if i < 0 {
			t.Fatalf("app.js has no version: %.200s", body)
		}
		v := body[i+len(`"GOAPP_VERSION":"`):]
		return v[:strings.Index(v, `"`)]
	}
	if a, b := version("http://localhost:9001"), version("http://localhost:9002"); a == b {
		t.Errorf("the same version %q for two Apps origins: a cached app.js would name the old one", a)
	}
}
