package service

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/relay/agentauth"
	"github.com/switchboard-mcp/switchboard/relay/hub/dashtest"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// newBalancer is a load balancer without affinity in front of replicas: it
// sends each request to the replica pick chooses, with the Host the client
// used (the relay's one address, which the replicas' issuer is).
func newBalancer(t *testing.T, pick func(*http.Request) *testReplica) *httptest.Server {
	t.Helper()
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			target, _ := url.Parse(pick(pr.In).public.URL)
			pr.SetURL(target)
			pr.Out.Host = pr.In.Host
		},
		FlushInterval: -1, // event streams pass at once
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv
}

// decideOn answers consent cards through a person's dashboard, as the
// consent page does: the card's op, then the answer's.
func decideOn(dash *dashtest.Dashboard) func(string, consent) (string, error) {
	return func(id string, answer consent) (string, error) {
		var card wire.AgentConsent
		if err := dash.Call(wire.OpAgentConsent, wire.AgentConsentArgs{Request: id}, &card); err != nil {
			return "", err
		}
		var res wire.AnswerAgentConsentResult
		err := dash.Call(wire.OpAnswerAgentConsent, answer(id, card), &res)
		return res.Redirect, err
	}
}

// An MCP client adds replicas behind a balancer by its URL: its
// authorization request reaches A, the person consents in a dashboard on B
// (the user's owner), and the code is spent at /token on C, where the
// agent's first MCP requests land too and go on to B; its calls ask the
// person on B.
func TestAnAgentsOAuthFlowCrossesReplicas(t *testing.T) {
	dbURL := sharedStore(t)
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	form := elicitfixture.Forms[0]
	const user = "alice"
	addServer(t, dbURL, user, "asker", fx.URL())
	a, b, c := startReplica(t, "A", dbURL), startReplica(t, "B", dbURL), startReplica(t, "C", dbURL)

	var next atomic.Uint32
	lb := newBalancer(t, func(r *http.Request) *testReplica {
		switch p := r.URL.Path; {
		case p == agentauth.AuthorizePath:
			return a
		case p == agentauth.TokenPath, strings.HasPrefix(p, "/mcp"):
			return c
		}
		return []*testReplica{a, b, c}[next.Add(1)%3] // metadata, registration
	})

	// The person's dashboard on B makes B the owner.
	dash := b.dashboard(t, user)
	if err := dash.WaitUntil("the server ready", func() bool { return dash.State("asker") == wire.StateReady }); err != nil {
		t.Fatalf("the dashboard's socket closed: %v", err)
	}

	r := &oauthRelay{t: t, srv: lb, decide: decideOn(dash)}
	agent, _, err := r.connect("/mcp", approve)
	if err != nil {
		t.Fatalf("the client adds the relay by its URL: %v", err)
	}
	tool := dash.ToolNamed(agent, "form_"+form.Name)
	if got, _ := elicitfixture.ParseOutcome(dash.CallAnswered(agent, tool, form.Example)); got.Action != "accept" {
		t.Errorf("the server got %+v, want the person's accept", got)
	}
	if !b.owns(user) || a.owns(user) || c.owns(user) {
		t.Errorf("owned by A %v, B %v, C %v; want B alone", a.owns(user), b.owns(user), c.owns(user))
	}
	var grants wire.AgentGrantsResult
	if err := dash.Call(wire.OpListAgentGrants, struct{}{}, &grants); err != nil {
		t.Fatal(err)
	}
	if len(grants.Grants) != 1 || grants.Grants[0].ClientName != "Test Agent" || grants.Grants[0].Endpoint != lb.URL+"/mcp" {
		t.Errorf("the person's grants %+v, want the one just given, bound to the balancer's /mcp", grants.Grants)
	}
}
