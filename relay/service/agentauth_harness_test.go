package service

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/relay/agentauth"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// oauthRelay is a relay with the demo server, served on loopback, that
// MCP clients add by its URL.
type oauthRelay struct {
	t    *testing.T
	svc  *Service
	srv  *httptest.Server
	demo string // the demo server's id
	// decide answers the consent card of a request id as the person and
	// returns where their browser goes next; nil asks svc's authorization
	// server directly, as the local user.
	decide func(request string, answer consent) (redirect string, err error)
}

func newOAuthRelay(t *testing.T) *oauthRelay {
	t.Helper()
	svc, err := New(context.Background(), Config{DataDir: t.TempDir(), Demo: true, AllowLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(svc.Handler())
	t.Cleanup(func() { srv.Close(); svc.Close() })
	r := &oauthRelay{t: t, svc: svc, srv: srv}
	r.demo = r.waitReady()
	return r
}

// waitReady waits until the local user's demo server is ready and returns its id.
func (r *oauthRelay) waitReady() string {
	s := r.svc.sessions.Session(DefaultLocalUser)
	changed := make(chan struct{}, 1)
	stop := s.Watch(func(string) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer stop()
	deadline := time.After(20 * time.Second)
	for {
		for _, st := range s.Servers() {
			if st.State == wire.StateReady {
				return st.ID
			}
		}
		select {
		case <-changed:
		case <-deadline:
			r.t.Fatal("the demo server did not become ready")
		}
	}
}

// consent is how a test answers the consent card of a request id.
type consent func(request string, card wire.AgentConsent) wire.AnswerAgentConsentArgs

// approve approves what the card asks for.
func approve(request string, card wire.AgentConsent) wire.AnswerAgentConsentArgs {
	return wire.AnswerAgentConsentArgs{Request: request, Approve: true, AllServers: card.AllServers, Servers: card.Servers}
}

func deny(request string, _ wire.AgentConsent) wire.AnswerAgentConsentArgs {
	return wire.AnswerAgentConsentArgs{Request: request}
}

// noRedirects is a client that shows redirects instead of following them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// authorize plays the browser: it opens the authorization URL, answers the
// consent card the relay sends it to (r.decide), and returns the query the
// client's redirect URI receives.
func (r *oauthRelay) authorize(authURL string, answer consent) (url.Values, error) {
	resp, err := noRedirects.Get(authURL)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || err != nil {
		return nil, errors.New("authorize: status " + resp.Status)
	}
	if loc.Path != agentauth.ConsentPath {
		return loc.Query(), nil // an error straight back to the client
	}
	decide := r.decide
	if decide == nil {
		decide = r.decideLocally
	}
	redirect, err := decide(loc.Query().Get(agentauth.ConsentParam), answer)
	if err != nil {
		return nil, err
	}
	back, err := url.Parse(redirect)
	if err != nil {
		return nil, err
	}
	return back.Query(), nil
}

// decideLocally answers the consent card of request id through svc's
// authorization server, as the local user.
func (r *oauthRelay) decideLocally(id string, answer consent) (string, error) {
	ctx := context.Background()
	card, err := r.svc.agents.auth.Consent(ctx, DefaultLocalUser, id)
	if err != nil {
		return "", err
	}
	res, err := r.svc.agents.auth.Decide(ctx, DefaultLocalUser, answer(id, card))
	return res.Redirect, err
}

// fetcher is the go-sdk's code fetcher, answering consent with answer.
func (r *oauthRelay) fetcher(answer consent) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		q, err := r.authorize(args.URL, answer)
		if err != nil {
			return nil, err
		}
		if e := q.Get("error"); e != "" {
			return nil, errors.New("authorization refused: " + e)
		}
		return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
	}
}

// connect adds the relay's endpoint at path to a go-sdk client by its URL,
// with the go-sdk's own OAuth handler registering dynamically.
func (r *oauthRelay) connect(path string, answer consent) (*mcp.ClientSession, *auth.AuthorizationCodeHandler, error) {
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "Test Agent", RedirectURIs: []string{"http://127.0.0.1:7777/callback"},
			GrantTypes: []string{"authorization_code", "refresh_token"},
		}},
		AuthorizationCodeFetcher: r.fetcher(answer),
		RequestRefreshToken:      true,
	})
	if err != nil {
		return nil, nil, err
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.srv.URL + path, OAuthHandler: h}, nil)
	if err == nil {
		r.t.Cleanup(func() { cs.Close() })
	}
	return cs, h, err
}

// pkce returns a verifier and its S256 challenge.
func pkce() (string, string) {
	v := oauth2.GenerateVerifier()
	return v, oauth2.S256ChallengeFromVerifier(v)
}

// register registers a client with redirect and returns its id.
func (r *oauthRelay) register(redirect string) string {
	r.t.Helper()
	resp, err := http.Post(r.srv.URL+agentauth.RegisterPath, "application/json",
		strings.NewReader(`{"client_name":"Raw","redirect_uris":["`+redirect+`"]}`))
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	var reg struct {
		ClientID string `json:"client_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reg); err != nil || resp.StatusCode != http.StatusCreated {
		r.t.Fatalf("register: %s %v", resp.Status, err)
	}
	return reg.ClientID
}

// authURL is an authorization request of client for resource.
func (r *oauthRelay) authURL(client, redirect, resource, challenge string) string {
	return r.srv.URL + agentauth.AuthorizePath + "?" + url.Values{
		"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "state": {"s1"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "resource": {resource},
	}.Encode()
}

// token posts form to the token endpoint and returns the decoded answer.
func (r *oauthRelay) token(form url.Values) (int, map[string]any) {
	r.t.Helper()
	resp, err := http.PostForm(r.srv.URL+agentauth.TokenPath, form)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// grantTokens runs a whole authorization of a raw client for resource
// and returns its client id and token answer.
func (r *oauthRelay) grantTokens(resource string) (string, map[string]any) {
	r.t.Helper()
	const redirect = "http://127.0.0.1:9999/cb"
	client := r.register(redirect)
	verifier, challenge := pkce()
	q, err := r.authorize(r.authURL(client, redirect, resource, challenge), approve)
	if err != nil || q.Get("code") == "" {
		r.t.Fatalf("authorize: %v %v", q, err)
	}
	status, tok := r.token(url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "client_id": {client},
		"redirect_uri": {redirect}, "code_verifier": {verifier}, "resource": {resource}})
	if status != http.StatusOK {
		r.t.Fatalf("token: %d %v", status, tok)
	}
	return client, tok
}

// status is the answer of the endpoint at path to an initialize with bearer.
func (r *oauthRelay) status(path, bearer string) (int, http.Header) {
	req, _ := http.NewRequest(http.MethodPost, r.srv.URL+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header
}
