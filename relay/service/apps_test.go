package service

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestAppsOnlyWithAnOrigin(t *testing.T) {
	const base, apps = "http://127.0.0.1:8080", "http://localhost:9001"
	off, err := New(context.Background(), Config{DataDir: t.TempDir(), PublicURL: base})
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	if off.AppsHandler() != nil {
		t.Error("an Apps handler without an Apps origin")
	}

	on, err := New(context.Background(), Config{DataDir: t.TempDir(), PublicURL: base, AppsOrigin: apps})
	if err != nil {
		t.Fatal(err)
	}
	defer on.Close()
	w := httptest.NewRecorder()
	on.AppsHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, wire.AppSandboxURL("", base, wire.AppCSP{}, wire.AppPermissions{}), nil))
	if w.Code != http.StatusOK || !strings.HasSuffix(w.Header().Get("Content-Security-Policy"), "frame-ancestors "+base) {
		t.Errorf("sandbox: %d %q", w.Code, w.Header().Get("Content-Security-Policy"))
	}
	w = httptest.NewRecorder()
	on.AppsHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, wire.AppSandboxPath+"?host="+url.QueryEscape(base)+"&connect="+url.QueryEscape("ws://127.0.0.1:8080"), nil))
	if w.Code != http.StatusBadRequest {
		t.Errorf("a view may reach the relay: %d", w.Code)
	}
	w = httptest.NewRecorder()
	on.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, base+"/", nil))
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "frame-src "+apps+";") {
		t.Errorf("dashboard CSP %q", csp)
	}

	if _, err := New(context.Background(), Config{DataDir: t.TempDir(), PublicURL: base, AppsOrigin: base}); err == nil {
		t.Error("the relay's own origin was taken as the Apps origin")
	}
}
