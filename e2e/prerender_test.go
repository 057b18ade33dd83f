package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web"
)

// TestFirstScreenShowsTheServersBeforeTheWasm loads the dashboard's page as
// a signed-in browser would, without running it: the relay has prerendered
// the person's servers, ready, marks the page so that go-app's loader does
// not cover them, and keeps the page out of caches.
func TestFirstScreenShowsTheServersBeforeTheWasm(t *testing.T) {
	r := startRelay(t)
	fx := fixture.Start(t)
	cookie := r.sessionCookie(t)
	s, _ := r.openSocket(t, cookie)
	id := s.addServer(fixtureName, fx.URL())
	s.waitServerState(id, wire.StateReady)

	req, err := http.NewRequest(http.MethodGet, r.URL()+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("get the page: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if row := `data-server-id="` + id + `"`; !strings.Contains(string(body), row) || !strings.Contains(string(body), `data-state="ready"`) {
		t.Errorf("the page does not show server %s ready:\n%.3000s", id, body)
	}
	if !strings.Contains(string(body), web.PrerenderedAttr+`="state"`) { // the stylesheet hides go-app's loader over it
		t.Errorf("the page is not marked %s, so go-app's loader covers the servers until the wasm runs", web.PrerenderedAttr)
	}
	if got := resp.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", got)
	}
}
