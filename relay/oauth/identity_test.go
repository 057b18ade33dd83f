package oauth_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestPreRegisteredCredentialsFromTheConfiguration(t *testing.T) {
	as := oauthfixture.AuthConfig{
		NoRegistration: true,
		AuthMethods:    []string{oauthfixture.MethodBasic},
		Clients:        []oauthfixture.Client{{ID: "pre-registered", Secret: "pre-secret", RedirectURIs: []string{testCallback}}},
	}
	w := newWorldWith(t, as, readScope, func(cfg *oauth.Config) {
		cfg.Clients = []oauth.Credentials{{Server: "http://placeholder.invalid/mcp", ClientID: "other", ClientSecret: "x"}}
	})
	// The credentials apply to this server only.
	w.cfg.Clients = append(w.cfg.Clients, oauth.Credentials{Server: w.rs.URL(), ClientID: "pre-registered", ClientSecret: "pre-secret"})
	w.restart()
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	waiting := r.AwaitState(wire.StateAuthenticating)
	if waiting.Auth.ClientID != "pre-registered" || !waiting.Auth.ClientSecretSet {
		t.Errorf("auth %+v, want the configured client with its secret set", waiting.Auth)
	}
	w.complete("ann", "s1")
	r.AwaitState(wire.StateReady)
	echo(t, c, "pre-registered")
	trs := w.as.TokenRequests()
	if len(trs) != 1 || trs[0].ClientID != "pre-registered" || trs[0].AuthMethod != oauthfixture.MethodBasic || trs[0].Error != "" {
		t.Errorf("token requests %+v, want one basic-authenticated by the pre-registered client", trs)
	}
}

func TestCredentialsEnteredByAPersonComeFirstAndTheSecretStaysWriteOnly(t *testing.T) {
	as := oauthfixture.AuthConfig{
		AuthMethods: []string{oauthfixture.MethodPost},
		Clients:     []oauthfixture.Client{{ID: "typed-in", Secret: "typed-secret", RedirectURIs: []string{testCallback}, Method: oauthfixture.MethodPost}},
	}
	w := newWorld(t, as, readScope)
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	if err := w.mgr.SetClient(context.Background(), "ann", "s1", "typed-in", "typed-secret"); err != nil {
		t.Fatal(err)
	}
	shown := r.Await("the client", func(s conn.State) bool { return s.Auth != nil && s.Auth.ClientID == "typed-in" })
	if !shown.Auth.ClientSecretSet {
		t.Errorf("auth %+v, want the secret marked set", shown.Auth)
	}
	w.complete("ann", "s1")
	r.AwaitState(wire.StateReady)
	echo(t, c, "typed")
	if n := w.as.Stats().Registrations; n != 0 {
		t.Errorf("%d dynamic registrations despite entered credentials", n)
	}
	if trs := w.as.TokenRequests(); len(trs) != 1 || trs[0].ClientID != "typed-in" || trs[0].AuthMethod != oauthfixture.MethodPost {
		t.Errorf("token requests %+v", trs)
	}
	if err := w.mgr.SetClient(context.Background(), "ann", "s1", " bad", ""); err == nil {
		t.Error("a client id with a leading space was accepted")
	}
	if err := w.mgr.SetClient(context.Background(), "ann", "s1", "", ""); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := w.oauth.Client(context.Background(), "ann", "s1", store.ClientManual); ok {
		t.Error("clearing the client id left the credentials stored")
	}
}

func TestClientIDMetadataDocumentIsUsedWhereSupported(t *testing.T) {
	const docURL = "https://relay.example/oauth/client.json"
	var mgr *oauth.Manager
	fetch := func(clientID string) ([]string, error) {
		rec := httptest.NewRecorder()
		mgr.MetadataHandler().ServeHTTP(rec, httptest.NewRequest("GET", clientID, nil))
		var doc struct {
			ClientID     string   `json:"client_id"`
			RedirectURIs []string `json:"redirect_uris"`
			AuthMethod   string   `json:"token_endpoint_auth_method"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			return nil, err
		}
		if doc.ClientID != clientID || doc.AuthMethod != "none" {
			t.Errorf("metadata document %+v", doc)
		}
		return doc.RedirectURIs, nil
	}
	w := newWorldWith(t, oauthfixture.AuthConfig{CIMD: true, FetchClientMetadata: fetch}, readScope,
		func(cfg *oauth.Config) { cfg.ClientMetadataURL = docURL })
	mgr = w.mgr
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	waiting := r.AwaitState(wire.StateAuthenticating)
	if waiting.Auth.ClientID != docURL {
		t.Errorf("client %q, want the metadata document URL", waiting.Auth.ClientID)
	}
	authURL := w.complete("ann", "s1")
	if got := mustQuery(t, authURL).Get("client_id"); got != docURL {
		t.Errorf("client_id %q", got)
	}
	r.AwaitState(wire.StateReady)
	echo(t, c, "cimd")
	if n := w.as.Stats().Registrations; n != 0 {
		t.Errorf("%d registrations, want none", n)
	}
}

func TestRemovingTheServerDeletesItsTokensAndRegistration(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	ctx := context.Background()
	pending, _ := w.authorize("ann", "s1") // left pending
	w.complete("ann", "s1")
	r.AwaitState(wire.StateReady)
	c.Close()

	if err := w.mgr.Forget(ctx, "ann", "s1"); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.token("ann", "s1"); ok {
		t.Error("the token survived")
	}
	for _, source := range []string{store.ClientDynamic, store.ClientManual} {
		if _, ok, _ := w.oauth.Client(ctx, "ann", "s1", source); ok {
			t.Errorf("the %s registration survived", source)
		}
	}
	cb, err := oauthfixture.Approve(ctx, pending)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.mgr.Callback(ctx, cb); err == nil {
		t.Error("a pending authorization of the removed server completed")
	}
	// The same id added again starts from nothing.
	_, r = w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	if _, err := w.mgr.Authorize(ctx, "ann", "s1"); err != nil {
		t.Fatal(err)
	}
	if n := w.as.Stats().Registrations; n != 2 {
		t.Errorf("%d registrations, want a new one after removal", n)
	}
}

func TestEnteredCredentialsAreBoundToTheAuthorizationServerOfTheirTime(t *testing.T) {
	as := oauthfixture.AuthConfig{
		Clients: []oauthfixture.Client{{ID: "typed-in", Secret: "typed-secret", RedirectURIs: []string{testCallback}}},
	}
	w := newWorld(t, as, readScope)
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	ctx := context.Background()
	if err := w.mgr.SetClient(ctx, "ann", "s1", "typed-in", "typed-secret"); err != nil {
		t.Fatal(err)
	}
	row, ok, err := w.oauth.Client(ctx, "ann", "s1", store.ClientManual)
	if err != nil || !ok || row.Issuer != w.as.Issuer() {
		t.Fatalf("stored credentials %v %v for issuer %q, want %q", ok, err, row.Issuer, w.as.Issuer())
	}
	w.complete("ann", "s1")
	r.AwaitState(wire.StateReady)
	c.Close()

	// The server now names another authorization server than the one the
	// credentials were entered for (here: they claim to be for another).
	for _, tc := range []struct{ name, issuer, want string }{
		{"another authorization server", "https://other-as.example", "entered for the authorization server https://other-as.example"},
		{"credentials of an older relay, without one", "", "do not say which authorization server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			row.Issuer = tc.issuer
			if err := w.oauth.PutClient(ctx, row); err != nil {
				t.Fatal(err)
			}
			w.restart()
			before := len(w.as.TokenRequests())
			w.clock.advance(2 * oauthfixture.DefaultTokenLifetime) // the token needs a refresh
			_, r := w.connect("ann", "s1", w.rs.URL(), "")
			waiting := r.Await("the refusal", func(s conn.State) bool {
				return s.State == wire.StateAuthenticating && s.Auth != nil && strings.Contains(s.Auth.Error, tc.want)
			})
			if waiting.Auth.Authorized {
				t.Errorf("auth %+v: the token survived credentials that no longer apply", waiting.Auth)
			}
			if _, err := w.mgr.Authorize(ctx, "ann", "s1"); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Authorize: %v, want %q", err, tc.want)
			}
			if n := len(w.as.TokenRequests()) - before; n != 0 {
				t.Errorf("%d token requests carried the credentials to the authorization server", n)
			}
		})
	}

	// Before any discovery and without a token, the status names the
	// authorization server the credentials are for.
	row.Issuer = "https://other-as.example"
	if err := w.oauth.PutClient(ctx, row); err != nil {
		t.Fatal(err)
	}
	w.restart()
	if st, _ := w.mgr.For("ann", "s1", w.rs.URL()).Watch(); st.Issuer != row.Issuer || st.ClientID != "typed-in" || !st.ClientSecretSet {
		t.Errorf("status %+v, want the credentials and their issuer %s", st, row.Issuer)
	}
}

func TestEnteringCredentialsNeedsTheAuthorizationServer(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	w.mgr.For("ann", "s1", "http://127.0.0.1:1/mcp") // nothing listens there
	ctx := context.Background()
	err := w.mgr.SetClient(ctx, "ann", "s1", "typed-in", "typed-secret")
	if err == nil || !strings.Contains(err.Error(), "not saved") {
		t.Errorf("SetClient without a reachable server: %v", err)
	}
	if _, ok, _ := w.oauth.Client(ctx, "ann", "s1", store.ClientManual); ok {
		t.Error("the credentials were stored")
	}
	if err := w.mgr.SetClient(ctx, "ann", "nope", "typed-in", ""); err == nil {
		t.Error("SetClient for a server without a connection succeeded")
	}
	if strings.Contains(w.logs.String(), "typed-secret") {
		t.Error("the secret reached the log")
	}
}

func TestConfiguredCredentialsAreFoundByIssuerAndServerNotByClientIDAlone(t *testing.T) {
	as := oauthfixture.AuthConfig{
		NoRegistration: true,
		Clients:        []oauthfixture.Client{{ID: "shared-id", Secret: "right-secret", RedirectURIs: []string{testCallback}}},
	}
	w := newWorld(t, as, readScope)
	// The same client id at another authorization server comes first.
	w.cfg.Clients = []oauth.Credentials{
		{Issuer: "https://other-as.example", ClientID: "shared-id", ClientSecret: "other-secret"},
		{Server: w.rs.URL(), ClientID: "shared-id", ClientSecret: "right-secret"},
	}
	w.restart()
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	w.complete("ann", "s1")
	r.AwaitState(wire.StateReady)
	echo(t, c, "right client")
	w.as.RevokeAccessTokens() // a refresh authenticates the same way
	echo(t, c, "refreshed")
	trs := w.as.TokenRequests()
	if len(trs) != 2 {
		t.Fatalf("token requests %+v, want a code exchange and a refresh", trs)
	}
	for _, tr := range trs {
		if tr.ClientID != "shared-id" || tr.Error != "" {
			t.Errorf("token request %+v, want the client authenticated with the secret for this server", tr)
		}
	}
	if strings.Contains(w.logs.String(), "other-secret") {
		t.Error("the other secret reached the log")
	}
}
