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
