package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/netguard"
)

// testToolServer is an MCP server offering the suite's test-tool; called
// receives a value for each call.
func testToolServer(called chan<- struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: authTool}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		called <- struct{}{}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "test"}}}, nil, nil
	})
	return s
}

func TestAuthScenarioAuthorizesWithoutAPersonAndCallsTheTool(t *testing.T) {
	called := make(chan struct{}, 1)
	f := newAuthFixture(t, testToolServer(called), nil)
	if err := run(t, t.Context(), "auth/metadata-default", f.mcpURL); err != nil {
		t.Fatalf("Run: %v", err)
	}
	select {
	case <-called:
	default:
		t.Fatal("the tool was not called")
	}
	auths := f.authorizations()
	if len(auths) != 1 {
		t.Fatalf("%d authorization requests, want 1", len(auths))
	}
	q := auths[0]
	for key, want := range map[string]string{"client_id": dynamicID, "code_challenge_method": "S256", "resource": f.mcpURL, "response_type": "code"} {
		if got := q.Get(key); got != want {
			t.Errorf("authorization request %s = %q, want %q", key, got, want)
		}
	}
	if f.tokenAuth != dynamicID {
		t.Errorf("the token request came from %q, want the registered client %q", f.tokenAuth, dynamicID)
	}
}

func TestPreRegisteredClientComesFromTheContext(t *testing.T) {
	creds := Context{ClientID: "pre-registered-client", ClientSecret: "pre-registered-secret"}
	called := make(chan struct{}, 1)
	f := newAuthFixture(t, testToolServer(called), func(f *authFixture) { f.preRegistered = &creds })
	ctx, cancel := context.WithTimeout(t.Context(), waitFor)
	defer cancel()
	err := Run(ctx, Config{
		Scenario:   "auth/pre-registration",
		ServerURL:  f.mcpURL,
		Context:    creds,
		HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0),
		TempDir:    t.TempDir(),
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if want := creds.ClientID + ":" + creds.ClientSecret; f.tokenAuth != want {
		t.Errorf("the token request authenticated as %q, want basic credentials %q", f.tokenAuth, want)
	}
}

func TestRefusedAuthorizationFailsTheRun(t *testing.T) {
	called := make(chan struct{}, 1)
	f := newAuthFixture(t, testToolServer(called), func(f *authFixture) { f.refuse = true })
	err := run(t, t.Context(), "auth/metadata-default", f.mcpURL)
	if err == nil || !strings.Contains(err.Error(), "access_denied") {
		t.Fatalf("Run = %v, want the authorization server's refusal", err)
	}
	if len(f.authorizations()) != 1 {
		t.Errorf("%d authorization requests, want 1 (no retry loop)", len(f.authorizations()))
	}
}

func TestFollowReturnsTheRedirectWithoutFollowingIt(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		loc     string
		want    string // the redirect's path and query; "" means an error
		visited bool   // whether the redirect target may be requested
	}{
		{name: "absolute", status: http.StatusFound, loc: "http://127.0.0.1:1/oauth/callback?code=c&state=s", want: "/oauth/callback?code=c&state=s"},
		{name: "relative", status: http.StatusSeeOther, loc: "/back?code=c", want: "/back?code=c"},
		{name: "no redirect", status: http.StatusOK},
		{name: "redirect without location", status: http.StatusFound},
		{name: "error status", status: http.StatusBadRequest, loc: "/back?code=c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			followed := false
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/authorize" {
					followed = true
					return
				}
				if tt.loc != "" {
					w.Header().Set("Location", tt.loc)
				}
				w.WriteHeader(tt.status)
			}))
			defer srv.Close()
			hc := netguard.Policy{AllowLoopback: true}.Client(0)
			hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			got, err := follow(t.Context(), hc, srv.URL+"/authorize")
			if tt.want == "" {
				if err == nil {
					t.Fatalf("follow = %v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("follow: %v", err)
			}
			if got.RequestURI() != tt.want || !got.IsAbs() {
				t.Errorf("follow = %v, want an absolute URL ending in %q", got, tt.want)
			}
			if followed {
				t.Error("follow requested the redirect target")
			}
		})
	}
}
