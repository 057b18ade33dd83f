package agentauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// approvedCode runs an approved authorization and returns its code and verifier.
func approvedCode(t *testing.T, s *Server, c store.AgentClient, id string) (string, string) {
	t.Helper()
	return approvedCodeIn(t, s, c, id, "")
}

// approvedCodeIn is approvedCode with the tool mode the person chose.
func approvedCodeIn(t *testing.T, s *Server, c store.AgentClient, id string, mode wire.ToolMode) (string, string) {
	t.Helper()
	verifier := oauth2.GenerateVerifier()
	err := s.addRequest(context.Background(), &request{
		ID: id, Client: client{ID: c.ID, Name: c.Name, Host: "127.0.0.1"}, RedirectURI: c.RedirectURIs[0],
		Challenge: oauth2.S256ChallengeFromVerifier(verifier), Issuer: "http://127.0.0.1:8080",
		Resource: "http://127.0.0.1:8080/mcp", AllServers: true, Expires: time.Now().Add(time.Minute),
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Decide(context.Background(), "u", wire.AnswerAgentConsentArgs{Request: id, Approve: true, AllServers: true, ToolMode: mode})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(res.Redirect)
	if u.Query().Get("iss") != "http://127.0.0.1:8080" {
		t.Errorf("the code's redirect %s lacks the issuer", res.Redirect)
	}
	return u.Query().Get("code"), verifier
}

// postToken posts form to the token endpoint.
func postToken(s *Server, form url.Values) (int, map[string]any) {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080"+TokenPath, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	s.serveToken(rec, req)
	var out map[string]any
	json.Unmarshal(rec.Body.Bytes(), &out)
	return rec.Code, out
}

func TestCodeIsSpentOnceWithItsVerifier(t *testing.T) {
	s := newTestServer(t, true, false)
	var revoked []string
	s.cfg.Revoked = func(id string) { revoked = append(revoked, id) }
	c, _ := s.cfg.Store.PutAgentClient(context.Background(), store.AgentClient{Name: "A", RedirectURIs: []string{"http://127.0.0.1:5000/cb"}, Expires: time.Now().Add(time.Hour)})
	exchange := func(code, verifier, client, redirect string) (int, map[string]any) {
		return postToken(s, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
			"client_id": {client}, "redirect_uri": {redirect}, "resource": {"http://127.0.0.1:8080/mcp"}})
	}
	code, verifier := approvedCode(t, s, c, "r1")
	if status, out := exchange(code, oauth2.GenerateVerifier(), c.ID, c.RedirectURIs[0]); status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Errorf("a wrong verifier: %d %v, want invalid_grant", status, out)
	}
	if status, out := exchange(code, verifier, c.ID, c.RedirectURIs[0]); status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Errorf("the code after a failed try: %d %v, want invalid_grant", status, out)
	}
	code, verifier = approvedCode(t, s, c, "r2")
	if status, out := exchange(code, verifier, "someone-else", c.RedirectURIs[0]); status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Errorf("another client: %d %v, want invalid_grant", status, out)
	}
	code, verifier = approvedCode(t, s, c, "r3")
	status, out := exchange(code, verifier, c.ID, c.RedirectURIs[0])
	if status != http.StatusOK || out["token_type"] != "Bearer" || out["scope"] != ScopeAll {
		t.Fatalf("the right exchange: %d %v", status, out)
	}
	access, _ := out["access_token"].(string)
	if g, err := s.Authenticate(context.Background(), access); err != nil || g.User != "u" || g.Resource != "http://127.0.0.1:8080/mcp" || g.Servers != nil {
		t.Errorf("the access token's grant: %+v %v", g, err)
	}
	if status, out := exchange(code, verifier, c.ID, c.RedirectURIs[0]); status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Errorf("the code twice: %d %v, want invalid_grant", status, out)
	}
	if _, err := s.Authenticate(context.Background(), access); err == nil || len(revoked) != 1 {
		t.Errorf("after the code came twice its token works (%v) or the sessions were not closed (%v)", err, revoked)
	}
	if status, out := postToken(s, url.Values{"grant_type": {"password"}}); status != http.StatusBadRequest || out["error"] != "unsupported_grant_type" {
		t.Errorf("a password grant: %d %v", status, out)
	}
}

// The tool mode the person chose on the consent card is the grant's.
func TestAGrantKeepsTheToolModeChosen(t *testing.T) {
	s := newTestServer(t, true, false)
	c, _ := s.cfg.Store.PutAgentClient(context.Background(), store.AgentClient{Name: "A", RedirectURIs: []string{"http://127.0.0.1:5000/cb"}, Expires: time.Now().Add(time.Hour)})
	for _, mode := range []wire.ToolMode{"", wire.ToolModeCode, wire.ToolModeBoth} {
		code, verifier := approvedCodeIn(t, s, c, "r-"+string(mode), mode)
		status, out := postToken(s, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
			"client_id": {c.ID}, "redirect_uri": {c.RedirectURIs[0]}, "resource": {"http://127.0.0.1:8080/mcp"}})
		if status != http.StatusOK {
			t.Fatalf("mode %q: %d %v", mode, status, out)
		}
		want := mode
		if want == "" {
			want = wire.ToolModeTools
		}
		if g, err := s.Authenticate(context.Background(), out["access_token"].(string)); err != nil || g.ToolMode != want {
			t.Errorf("mode %q: the grant's mode is %q (%v)", mode, g.ToolMode, err)
		}
	}
	err := s.addRequest(context.Background(), &request{ID: "bad", Client: client{ID: c.ID, Name: c.Name, Host: "127.0.0.1"}, RedirectURI: c.RedirectURIs[0],
		Issuer: "http://127.0.0.1:8080", Resource: "http://127.0.0.1:8080/mcp", AllServers: true, Expires: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Decide(context.Background(), "u", wire.AnswerAgentConsentArgs{Request: "bad", Approve: true, AllServers: true, ToolMode: "sometimes"}); err == nil {
		t.Error("a tool mode that is none was taken")
	}
}

// Servers on one store are one authorization server: the request made on
// one is answered on another and its code spent on a third, once.
func TestAnAuthorizationCrossesTheServersOfOneStore(t *testing.T) {
	dir := t.TempDir()
	authorizing, consenting, issuing := newTestServerOn(t, dir, true, false), newTestServerOn(t, dir, true, false), newTestServerOn(t, dir, true, false)
	ctx := context.Background()
	c, err := authorizing.cfg.Store.PutAgentClient(ctx, store.AgentClient{Name: "A", RedirectURIs: []string{"http://127.0.0.1:5000/cb"}, Expires: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	verifier := oauth2.GenerateVerifier()
	q := url.Values{
		"response_type": {"code"}, "client_id": {c.ID}, "redirect_uri": {c.RedirectURIs[0]}, "state": {"xyz"},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}, "resource": {"http://127.0.0.1:8080/mcp"},
	}
	id := consentID(t, authorizing, q)
	if card, err := consenting.Consent(ctx, "u", id); err != nil || card.ClientID != c.ID {
		t.Fatalf("the card on another server: %+v %v", card, err)
	}
	res, err := consenting.Decide(ctx, "u", wire.AnswerAgentConsentArgs{Request: id, Approve: true, AllServers: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := authorizing.Decide(ctx, "u", wire.AnswerAgentConsentArgs{Request: id}); err == nil {
		t.Error("the request was answered again on the server that took it")
	}
	back, _ := url.Parse(res.Redirect)
	form := url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")}, "code_verifier": {verifier},
		"client_id": {c.ID}, "redirect_uri": {c.RedirectURIs[0]}, "resource": {"http://127.0.0.1:8080/mcp"}}
	status, out := postToken(issuing, form)
	if status != http.StatusOK || back.Query().Get("state") != "xyz" {
		t.Fatalf("the code on a third server: %d %v (state %q)", status, out, back.Query().Get("state"))
	}
	access, _ := out["access_token"].(string)
	if g, err := authorizing.Authenticate(ctx, access); err != nil || g.User != "u" {
		t.Errorf("the access token on the first server: %+v %v", g, err)
	}
	// The code again, on the first server: refused, and the grant is revoked.
	if status, out := postToken(authorizing, form); status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Errorf("the code again elsewhere: %d %v, want invalid_grant", status, out)
	}
	if _, err := issuing.Authenticate(ctx, access); err == nil {
		t.Error("the access token works after its code came twice")
	}
}
