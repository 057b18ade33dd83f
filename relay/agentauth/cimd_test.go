package agentauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/relay/store"
)

// documentServer serves a client metadata document at /client with the
// given Cache-Control, counting fetches; body is its JSON with %s the
// document's own URL.
func documentServer(t *testing.T, cacheControl, body string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if cacheControl != "" {
			w.Header().Set("Cache-Control", cacheControl)
		}
		w.Write([]byte(strings.ReplaceAll(body, "%s", srv.URL+"/client")))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func newTestServer(t *testing.T, loopbackClients, netLoopback bool) *Server {
	t.Helper()
	return newTestServerOn(t, t.TempDir(), loopbackClients, netLoopback)
}

// newTestServerOn is a server on the store in dir, as each relay that
// shares a store has its own.
func newTestServerOn(t *testing.T, dir string, loopbackClients, netLoopback bool) *Server {
	t.Helper()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return New(Config{
		Store: st, LoopbackClients: loopbackClients, Endpoint: "/mcp", ServerEndpoint: "/mcp/s/",
		HTTPClient: netguard.Policy{AllowLoopback: netLoopback}.Client(0),
	})
}

const goodDocument = `{"client_id":"%s","client_name":"Example Agent","redirect_uris":["http://127.0.0.1/cb"]}`

func TestClientDocumentIsCachedAsItsHeadersSay(t *testing.T) {
	s := newTestServer(t, true, true)
	for _, c := range []struct {
		cacheControl string
		wantHits     int32
	}{
		{"max-age=60", 1},
		{"no-store", 2},
		{"max-age=0", 2},
		{"", 1}, // no header: a short default
	} {
		srv, hits := documentServer(t, c.cacheControl, goodDocument)
		for range 2 {
			cl, err := s.lookupClient(context.Background(), srv.URL+"/client")
			if err != nil || cl.Name != "Example Agent" || !cl.Document || cl.Host != "127.0.0.1" {
				t.Fatalf("%q: %+v %v", c.cacheControl, cl, err)
			}
		}
		if hits.Load() != c.wantHits {
			t.Errorf("Cache-Control %q: fetched %d times, want %d", c.cacheControl, hits.Load(), c.wantHits)
		}
	}
}

func TestClientDocumentIsRefused(t *testing.T) {
	big := `{"client_id":"%s","redirect_uris":["http://127.0.0.1/cb"],"pad":"` + strings.Repeat("x", maxDocumentBytes) + `"}`
	for _, c := range []struct {
		name, body    string
		loopbackIDs   bool
		loopbackNet   bool
		wantInMessage string
	}{
		{"too large", big, true, true, "larger than"},
		{"another client id", `{"client_id":"https://other.example/c","redirect_uris":["http://127.0.0.1/cb"]}`, true, true, "another client_id"},
		{"no redirect", `{"client_id":"%s"}`, true, true, "redirect_uris"},
		{"javascript redirect", `{"client_id":"%s","redirect_uris":["javascript:alert(1)"]}`, true, true, "not allowed"},
		{"http id on a public relay", goodDocument, false, true, "https"},
		{"netguard blocks loopback", goodDocument, true, false, "fetch"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newTestServer(t, c.loopbackIDs, c.loopbackNet)
			srv, _ := documentServer(t, "", c.body)
			_, err := s.lookupClient(context.Background(), srv.URL+"/client")
			if err == nil || !strings.Contains(err.Error(), c.wantInMessage) {
				t.Errorf("error %v, want one mentioning %q", err, c.wantInMessage)
			}
		})
	}
}

func TestNameFitsHost(t *testing.T) {
	for _, c := range []struct {
		name, host string
		want       bool
	}{
		{"Claude", "claude.ai", true},
		{"VS Code", "code.visualstudio.com", true},
		{"Cursor Agent", "www.cursor.com", true},
		{"Claude", "evil.example", false},
		{"GitHub Copilot", "copi1ot.example", false},
		{"Anything", "127.0.0.1", true},
	} {
		if got := nameFitsHost(c.name, c.host); got != c.want {
			t.Errorf("nameFitsHost(%q, %q) = %v, want %v", c.name, c.host, got, c.want)
		}
	}
}

// A document is taken only from its own address: a redirect to another
// server (an open redirect on a known client's site) is refused.
func TestClientDocumentReachedByARedirectIsRefused(t *testing.T) {
	s := newTestServer(t, true, true)
	elsewhere, _ := documentServer(t, "", goodDocument)
	known := httptest.NewServer(http.RedirectHandler(elsewhere.URL+"/client", http.StatusFound))
	t.Cleanup(known.Close)
	if c, err := s.lookupClient(context.Background(), known.URL+"/client"); err == nil {
		t.Errorf("a redirected document was taken: %+v", c)
	}
}
