package agentauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// challenge is a valid S256 code challenge.
var challenge = strings.Repeat("A", 43)

// consentID sends the authorization request q to s and returns the
// request id of the consent page it sends the browser to; it fails t when
// it sends the browser elsewhere.
func consentID(t *testing.T, s *Server, q url.Values) string {
	t.Helper()
	rec := httptest.NewRecorder()
	s.serveAuthorize(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080"+AuthorizePath+"?"+q.Encode(), nil))
	loc, _ := url.Parse(rec.Header().Get("Location"))
	if rec.Code != http.StatusSeeOther || loc == nil || loc.Path != ConsentPath || loc.Query().Get(ConsentParam) == "" {
		t.Fatalf("authorize: %d to %q, want the consent page", rec.Code, rec.Header().Get("Location"))
	}
	return loc.Query().Get(ConsentParam)
}

func TestDocumentClientReachesTheConsentCard(t *testing.T) {
	s := newTestServer(t, true, true)
	doc, _ := documentServer(t, "max-age=60", `{"client_id":"%s","client_name":"Example Agent","redirect_uris":["http://127.0.0.1:5000/cb"]}`)
	q := url.Values{
		"response_type": {"code"}, "client_id": {doc.URL + "/client"}, "redirect_uri": {"http://127.0.0.1:6000/cb"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "resource": {"http://127.0.0.1:8080/mcp"}, "state": {"xyz"},
	}
	id := consentID(t, s, q)
	card, err := s.Consent(context.Background(), "u", id)
	if err != nil {
		t.Fatal(err)
	}
	want := wire.AgentConsent{ClientName: "Example Agent", ClientID: doc.URL + "/client", ClientHost: "127.0.0.1", Verified: true,
		RedirectHost: "127.0.0.1", Endpoint: "http://127.0.0.1:8080/mcp", AllServers: true}
	if card.ClientName != want.ClientName || card.ClientID != want.ClientID || card.ClientHost != want.ClientHost ||
		card.Verified != want.Verified || card.RedirectHost != want.RedirectHost || card.Endpoint != want.Endpoint || !card.AllServers {
		t.Errorf("card %+v, want %+v", card, want)
	}
	// Denied: the client hears access_denied with its state, and the request is gone.
	res, err := s.Decide(context.Background(), "u", wire.AnswerAgentConsentArgs{Request: id})
	back, _ := url.Parse(res.Redirect)
	if err != nil || back.Query().Get("error") != "access_denied" || back.Query().Get("state") != "xyz" || back.Host != "127.0.0.1:6000" {
		t.Errorf("denial redirects to %q (%v)", res.Redirect, err)
	}
	if _, err := s.Consent(context.Background(), "u", id); err == nil {
		t.Error("a denied request still shows")
	}
}

func TestConsentWarnsOfAMismatchedNameAndANewHost(t *testing.T) {
	s := newTestServer(t, true, false)
	req := &request{
		ID: "r1", Client: client{ID: "https://evil.example/c", Name: "Claude", Host: "evil.example", Document: true},
		RedirectURI: "https://evil.example/cb", Resource: "http://127.0.0.1:8080/mcp", AllServers: true, Expires: time.Now().Add(time.Minute),
	}
	if err := s.addRequest(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	card, err := s.Consent(context.Background(), "u", "r1")
	if err != nil || !card.NameMismatch || !card.NewHost || card.RedirectHost != "evil.example" {
		t.Fatalf("card %+v (%v), want both warnings", card, err)
	}
	if _, err := s.cfg.Store.CreateAgentGrant(context.Background(), store.AgentGrant{User: "u", ClientID: "x", ClientName: "x", ClientHost: "evil.example", AllServers: true}); err != nil {
		t.Fatal(err)
	}
	if card, _ := s.Consent(context.Background(), "u", "r1"); card.NewHost {
		t.Error("a host the person allowed before is still new")
	}
	if card, _ := s.Consent(context.Background(), "other", "r1"); !card.NewHost {
		t.Error("a host another person allowed is not new for this one")
	}
}

func TestAuthorizeRefusesWhatItMust(t *testing.T) {
	s := newTestServer(t, true, false)
	c, err := s.cfg.Store.PutAgentClient(context.Background(), store.AgentClient{Name: "A", RedirectURIs: []string{"http://127.0.0.1:5000/cb"}, Expires: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	base := url.Values{
		"response_type": {"code"}, "client_id": {c.ID}, "redirect_uri": {"http://127.0.0.1:5000/cb"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "resource": {"http://127.0.0.1:8080/mcp"},
	}
	for _, tc := range []struct {
		key, value, wantError string
	}{
		{"code_challenge_method", "plain", "invalid_request"},
		{"code_challenge", "", "invalid_request"},
		{"response_type", "token", "unsupported_response_type"},
		{"resource", "http://127.0.0.1:8080/api/tools", "invalid_target"},
		{"resource", "", "invalid_target"},
		{"scope", "admin", "invalid_scope"},
	} {
		q := url.Values{}
		for k, v := range base {
			q[k] = v
		}
		q.Set(tc.key, tc.value)
		rec := httptest.NewRecorder()
		s.serveAuthorize(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080"+AuthorizePath+"?"+q.Encode(), nil))
		loc, _ := url.Parse(rec.Header().Get("Location"))
		if rec.Code != http.StatusSeeOther || loc == nil || loc.Query().Get("error") != tc.wantError || loc.Host != "127.0.0.1:5000" {
			t.Errorf("%s=%q: %d to %q, want %s at the client", tc.key, tc.value, rec.Code, rec.Header().Get("Location"), tc.wantError)
		}
	}
}

func TestIssuerFollowsThePublicURLOnlyForItsHost(t *testing.T) {
	s := New(Config{PublicURL: "https://relay.example/", Endpoint: "/mcp", ServerEndpoint: "/mcp/s/"})
	for host, want := range map[string]string{"relay.example": "https://relay.example", "127.0.0.1:8080": "http://127.0.0.1:8080"} {
		r := httptest.NewRequest(http.MethodGet, "http://"+host+"/mcp/", nil)
		if got := s.Issuer(r); got != want {
			t.Errorf("issuer for Host %s = %q, want %q", host, got, want)
		}
		if got := s.ResourceURL(r); got != want+"/mcp" {
			t.Errorf("resource for Host %s = %q, want %q", host, got, want+"/mcp")
		}
	}
}

// A registered client is shown by the host it sends the person back to, not
// by the first of the redirects it registered.
func TestRegisteredClientIsShownByTheRedirectItUses(t *testing.T) {
	s := newTestServer(t, true, false)
	c, err := s.cfg.Store.PutAgentClient(context.Background(), store.AgentClient{Name: "Claude",
		RedirectURIs: []string{"https://claude.ai/cb", "https://evil.example/cb"}, Expires: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{
		"response_type": {"code"}, "client_id": {c.ID}, "redirect_uri": {"https://evil.example/cb"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "resource": {"http://127.0.0.1:8080/mcp"},
	}
	card, err := s.Consent(context.Background(), "u", consentID(t, s, q))
	if err != nil || card.ClientHost != "evil.example" {
		t.Errorf("card %+v (%v), want the host evil.example", card, err)
	}
}
