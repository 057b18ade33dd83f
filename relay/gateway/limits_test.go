package gateway_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/relay/session"
)

// apiStatus is the status of GET /api/tools with bearer.
func (r *relay) apiStatus(t *testing.T, bearer string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, r.url+gateway.ToolsPath, nil)
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A key has one budget, whichever route spends it: a key that spent it on
// the tool API is refused on /mcp, and two tokens of one OAuth grant (one
// key id) share theirs.
func TestOneBudgetPerKeyAcrossRoutes(t *testing.T) {
	const burst = 3
	r := newRelayWith(t, session.Config{}, gateway.Config{Limits: gateway.NewLimits(rate.Every(time.Hour), burst)})
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	r.keys.put("t1", agentkeys.Grant{User: "alice", Agent: "App", KeyID: "grant:g1"})
	r.keys.put("t2", agentkeys.Grant{User: "alice", Agent: "App", KeyID: "grant:g1"})
	r.keys.put("k3", agentkeys.Grant{User: "alice", Agent: "Other", KeyID: "key3"})

	for i := range burst {
		if got := r.apiStatus(t, "k1"); got != http.StatusOK {
			t.Fatalf("request %d of the burst: %d", i+1, got)
		}
	}
	if got := r.apiStatus(t, "k1"); got != http.StatusTooManyRequests {
		t.Fatalf("past the burst on the tool API: %d, want 429", got)
	}
	if _, err := r.dial("k1", gateway.Path, eras[0]); err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
		t.Errorf("/mcp with a key whose budget the tool API spent: %v, want 429", err)
	}

	for range burst {
		r.apiStatus(t, "t1")
	}
	if got := r.apiStatus(t, "t2"); got != http.StatusTooManyRequests {
		t.Errorf("another token of the grant whose budget one token spent: %d, want 429", got)
	}
	if got := r.apiStatus(t, "k3"); got != http.StatusOK {
		t.Errorf("another key: %d, want its own budget", got)
	}
}
