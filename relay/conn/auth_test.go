package conn

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// tokens is an Authorizer handing out a fixed sequence of tokens: each 401
// moves to the next one, until there are none left.
type tokens struct {
	mu      sync.Mutex
	list    []string
	changed chan struct{}
}

func (a *tokens) Token(context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.list[0], nil
}

func (a *tokens) Unauthorized(_ context.Context, sent string, _ http.Header, canRefresh bool) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !canRefresh || len(a.list) < 2 {
		return false
	}
	a.list = a.list[1:]
	return true
}

func (a *tokens) InsufficientScope(http.Header) {}
func (a *tokens) Discover(context.Context)      {}
func (a *tokens) Watch() (wire.AuthState, <-chan struct{}) {
	return wire.AuthState{Authorized: true}, a.changed
}

// seen records the Authorization header and body of each request.
type seen struct {
	mu     sync.Mutex
	auth   []string
	bodies []string
}

func (s *seen) handler(refuse string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.bodies = append(s.bodies, string(b))
		s.mu.Unlock()
		if refuse != "" && r.Header.Get("Authorization") == "Bearer "+refuse {
			w.Header().Set("WWW-Authenticate", `Bearer scope="x"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte("ok"))
	})
}

func TestBearerTokenGoesOnlyToTheServersOrigin(t *testing.T) {
	var own, other seen
	server := httptest.NewServer(own.handler(""))
	defer server.Close()
	elsewhere := httptest.NewServer(other.handler(""))
	defer elsewhere.Close()
	rt := &authTransport{base: http.DefaultTransport, auth: &tokens{list: []string{"tok"}}, origin: origin(server.URL + "/mcp")}
	hc := &http.Client{Transport: rt}
	for _, u := range []string{server.URL + "/mcp", server.URL + "/messages?session=1", elsewhere.URL + "/mcp"} {
		resp, err := hc.Post(u, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if len(own.auth) != 2 || own.auth[0] != "Bearer tok" || own.auth[1] != "Bearer tok" {
		t.Errorf("the server got %q", own.auth)
	}
	if len(other.auth) != 1 || other.auth[0] != "" {
		t.Errorf("another origin got %q", other.auth)
	}
}

func TestRefusedRequestIsRepeatedOnceWithItsBodyAndTheNewToken(t *testing.T) {
	var s seen
	server := httptest.NewServer(s.handler("old"))
	defer server.Close()
	rt := &authTransport{base: http.DefaultTransport, auth: &tokens{list: []string{"old", "new"}}, origin: origin(server.URL)}
	resp, err := (&http.Client{Transport: rt}).Post(server.URL+"/mcp", "application/json", strings.NewReader(`{"id":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if len(s.auth) != 2 || s.auth[1] != "Bearer new" || s.bodies[0] != `{"id":1}` || s.bodies[1] != `{"id":1}` {
		t.Errorf("requests %q with bodies %q", s.auth, s.bodies)
	}
	if rt.needed.Load() {
		t.Error("a refreshed request was marked as needing authorization")
	}
}

func TestRequestRefusedAfterARefreshNeedsAuthorization(t *testing.T) {
	var requests atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer server.Close()
	rt := &authTransport{base: http.DefaultTransport, auth: &tokens{list: []string{"a", "b", "c"}}, origin: origin(server.URL)}
	_, err := (&http.Client{Transport: rt}).Post(server.URL+"/mcp", "application/json", strings.NewReader(`{}`))
	if err == nil || !strings.Contains(err.Error(), errAuthRequired.Error()) {
		t.Fatalf("err %v, want %v", err, errAuthRequired)
	}
	if n := requests.Load(); n != 2 {
		t.Errorf("%d requests, want one and one repeat after the refresh", n)
	}
	if !rt.needed.Load() {
		t.Error("the request was not marked as needing authorization")
	}
}

func TestForbiddenAsksForMoreScopeOnlyWithABearerScopeChallenge(t *testing.T) {
	for _, tc := range []struct {
		challenge string
		want      bool
	}{
		{`Bearer error="insufficient_scope", scope="a b"`, true},
		{`Bearer error="insufficient_scope"`, true},
		{`Bearer scope="mcp:write", resource_metadata="https://h/m"`, true},
		{`Bearer error="invalid_token", scope="a"`, false},
		{`Bearer resource_metadata="https://h/m"`, false},
		{`Basic realm="x"`, false},
		{``, false},
		{`Bearer error="insufficient_scope`, false},
	} {
		h := http.Header{}
		if tc.challenge != "" {
			h.Set("WWW-Authenticate", tc.challenge)
		}
		if got := insufficientScope(h); got != tc.want {
			t.Errorf("insufficientScope(%q) = %v, want %v", tc.challenge, got, tc.want)
		}
	}
}
