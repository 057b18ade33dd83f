package oauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// machineSecret is the client secret of the machine tests, looked for in
// states and logs.
const machineSecret = "machine-secret-MMMM-5555"

// configureMachine registers user's server at the world's resource and
// gives it machine access mc.
func (w *world) configureMachine(user, server string, mc store.OAuthMachine) {
	w.t.Helper()
	ctx := context.Background()
	err := w.st.PutServer(ctx, store.Server{User: user, ID: server, Name: server, URL: w.rs.URL(), Transport: string(wire.TransportStreamable)})
	if err != nil {
		w.t.Fatal(err)
	}
	mc.User, mc.Server = user, server
	if err := w.oauth.PutMachine(ctx, mc); err != nil {
		w.t.Fatal(err)
	}
}

// neverAskedAPerson fails when a state of r required a person to authorize.
func neverAskedAPerson(t *testing.T, r *recorder) {
	t.Helper()
	for _, s := range r.All() {
		if s.State == wire.StateAuthenticating || (s.Auth != nil && s.Auth.Required) {
			t.Fatalf("a person was asked to authorize: %+v", s)
		}
	}
}

// machineRequests returns the token requests of grant.
func machineRequests(as *oauthfixture.AuthServer, grant string) []oauthfixture.TokenRequest {
	var out []oauthfixture.TokenRequest
	for _, tr := range as.TokenRequests() {
		if tr.GrantType == grant {
			out = append(out, tr)
		}
	}
	return out
}

// ecKeyPEM returns a new P-256 key and its PKCS #8 PEM.
func ecKeyPEM(t *testing.T) (*ecdsa.PrivateKey, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return key, string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

func TestClientCredentialsWithBasicAuthenticationConnectWithoutAPerson(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{ClientCredentials: true,
		Clients: []oauthfixture.Client{{ID: "svc", Secret: machineSecret}}}, readScope)
	w.configureMachine("ann", "s1", store.OAuthMachine{Grant: store.MachineClientCredentials, ClientID: "svc",
		AuthMethod: "client_secret_basic", Secret: machineSecret})
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	ready := r.AwaitState(wire.StateReady)
	echo(t, c, "machine")
	neverAskedAPerson(t, r)

	reqs := machineRequests(w.as, "client_credentials")
	if len(reqs) != 1 {
		t.Fatalf("%d client credentials requests, want 1: %+v", len(reqs), w.as.TokenRequests())
	}
	if got := reqs[0]; got.AuthMethod != oauthfixture.MethodBasic || got.Resource != w.rs.URL() || got.Scope != "mcp:read" {
		t.Errorf("token request %+v, want Basic authentication, the resource and the challenge's scope", got)
	}
	tok, ok := w.token("ann", "s1")
	if !ok || tok.RefreshToken != "" || tok.ClientID != "svc" {
		t.Errorf("stored token %+v, %v; want the machine's, without a refresh token", tok.ClientID, ok)
	}
	if ready.Auth == nil || !ready.Auth.Authorized || ready.Auth.ClientID != "svc" || ready.Auth.Issuer != w.as.Issuer() {
		t.Errorf("auth state %+v, want authorized as svc at %s", ready.Auth, w.as.Issuer())
	}
	for where, text := range map[string]string{"states": r.AllJSON(), "logs": w.logs.String()} {
		if strings.Contains(text, machineSecret) || strings.Contains(text, tok.AccessToken) {
			t.Errorf("the %s hold the client secret or the token", where)
		}
	}
}

func TestClientCredentialsWithPrivateKeyJWT(t *testing.T) {
	key, keyPEM := ecKeyPEM(t)
	w := newWorld(t, oauthfixture.AuthConfig{ClientCredentials: true, AuthMethods: []string{oauthfixture.MethodPrivateKeyJWT},
		SigningAlgs: []string{"ES256"}, Clients: []oauthfixture.Client{{ID: "svc-jwt", Method: oauthfixture.MethodPrivateKeyJWT, PublicKey: &key.PublicKey}}}, readScope)
	w.configureMachine("ann", "s1", store.OAuthMachine{Grant: store.MachineClientCredentials, ClientID: "svc-jwt",
		AuthMethod: "private_key_jwt", Secret: keyPEM})
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateReady)
	echo(t, c, "signed")
	neverAskedAPerson(t, r)
	reqs := machineRequests(w.as, "client_credentials")
	if len(reqs) != 1 || reqs[0].AuthMethod != oauthfixture.MethodPrivateKeyJWT || reqs[0].ClientID != "svc-jwt" || reqs[0].Error != "" {
		t.Fatalf("token requests %+v, want one authenticated by a client assertion of svc-jwt", w.as.TokenRequests())
	}
	keyLine := strings.Split(keyPEM, "\n")[1]
	if strings.Contains(r.AllJSON(), keyLine) || strings.Contains(w.logs.String(), keyLine) {
		t.Error("the private key shows in states or logs")
	}
}

func TestMachineTokenIsObtainedAgainWhenItExpiresOrIsRefused(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{ClientCredentials: true,
		Clients: []oauthfixture.Client{{ID: "svc", Secret: machineSecret, Method: oauthfixture.MethodPost}}}, readScope)
	w.configureMachine("ann", "s1", store.OAuthMachine{Grant: store.MachineClientCredentials, ClientID: "svc",
		AuthMethod: "client_secret_post", Secret: machineSecret, Scope: "mcp:read mcp:write"})
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateReady)
	first, _ := w.token("ann", "s1")

	w.clock.advance(oauthfixture.DefaultTokenLifetime - 30*time.Second) // inside the renewal margin
	echo(t, c, "renewed")
	second, _ := w.token("ann", "s1")
	if second.AccessToken == first.AccessToken {
		t.Fatal("the token was not renewed before it expired")
	}

	w.as.RevokeAccessTokens()
	echo(t, c, "after a 401")
	third, _ := w.token("ann", "s1")
	if third.AccessToken == second.AccessToken {
		t.Fatal("the refused token was not replaced")
	}
	reqs := machineRequests(w.as, "client_credentials")
	if len(reqs) != 3 {
		t.Fatalf("%d client credentials grants, want 3 (start, expiry, 401)", len(reqs))
	}
	for _, tr := range reqs {
		if tr.AuthMethod != oauthfixture.MethodPost || tr.Scope != "mcp:read mcp:write" {
			t.Errorf("token request %+v, want client_secret_post with the configured scope", tr)
		}
	}
	if n := w.as.Stats().Refreshes; n != 0 {
		t.Errorf("%d refresh grants, want none: a machine token is renewed by a new grant", n)
	}
	neverAskedAPerson(t, r)
}

func TestRefusedMachineCredentialsFailWithTheReasonAndAskNoPerson(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{ClientCredentials: true,
		Clients: []oauthfixture.Client{{ID: "svc", Secret: "the-right-one"}}}, readScope)
	w.configureMachine("ann", "s1", store.OAuthMachine{Grant: store.MachineClientCredentials, ClientID: "svc",
		AuthMethod: "client_secret_basic", Secret: machineSecret})
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	failed := r.Await("failed with the refusal", func(s conn.State) bool {
		return s.State == wire.StateFailed && s.Auth != nil && strings.Contains(s.Auth.Error, "invalid_client") &&
			strings.Contains(s.Error, "machine access failed")
	})
	if failed.Auth.Required {
		t.Errorf("auth state %+v asks a person to authorize machine access", failed.Auth)
	}
	neverAskedAPerson(t, r)
	if strings.Contains(r.AllJSON(), machineSecret) || strings.Contains(w.logs.String(), machineSecret) {
		t.Error("the refused secret shows in states or logs")
	}
}

func TestMachineMethodTheAuthorizationServerDoesNotOfferIsExplained(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{ClientCredentials: true, AuthMethods: []string{oauthfixture.MethodPrivateKeyJWT},
		Clients: []oauthfixture.Client{{ID: "svc", Secret: machineSecret}}}, readScope)
	w.configureMachine("ann", "s1", store.OAuthMachine{Grant: store.MachineClientCredentials, ClientID: "svc",
		AuthMethod: "client_secret_basic", Secret: machineSecret})
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.Await("failed with the method", func(s conn.State) bool {
		return s.State == wire.StateFailed && s.Auth != nil && strings.Contains(s.Auth.Error, "does not accept client_secret_basic")
	})
	if n := len(w.as.TokenRequests()); n != 0 {
		t.Errorf("%d token requests, want none: the secret must not be sent", n)
	}
}

func TestCrossAppAccessTradesTheUsersIDTokenForAnAccessToken(t *testing.T) {
	idp := oauthfixture.StartIdP(t, oauthfixture.IdPConfig{ClientID: "relay-at-idp", ResourceClientID: "relay-at-as"})
	var asked []string
	w := newWorldWith(t, oauthfixture.AuthConfig{TrustedIdP: idp, AuthMethods: []string{oauthfixture.MethodBasic},
		Clients: []oauthfixture.Client{{ID: "relay-at-as", Secret: machineSecret}}}, readScope, func(cfg *oauth.Config) {
		cfg.CrossApp = &oauth.CrossApp{TokenEndpoint: idp.TokenEndpoint(), ClientID: "relay-at-idp",
			IDToken: func(_ context.Context, user string) (string, error) {
				asked = append(asked, user)
				return idp.IDToken(user, time.Hour), nil
			}}
	})
	w.configureMachine("ann", "s1", store.OAuthMachine{Grant: store.MachineCrossApp, ClientID: "relay-at-as",
		AuthMethod: "client_secret_basic", Secret: machineSecret})
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateReady)
	echo(t, c, "enterprise")
	neverAskedAPerson(t, r)

	if !slices.Equal(asked, []string{"ann"}) {
		t.Errorf("ID tokens asked for %v, want ann's once", asked)
	}
	ex := idp.Exchanges()
	if len(ex) != 1 || ex[0].Audience != w.as.Issuer() || ex[0].Resource != w.rs.URL() || ex[0].Error != "" {
		t.Fatalf("token exchanges %+v, want one for the authorization server's issuer and the resource", ex)
	}
	reqs := machineRequests(w.as, "urn:ietf:params:oauth:grant-type:jwt-bearer")
	if len(reqs) != 1 || reqs[0].Error != "" || reqs[0].AuthMethod != oauthfixture.MethodBasic || reqs[0].ClientID != "relay-at-as" {
		t.Fatalf("token requests %+v, want one accepted JWT bearer grant by relay-at-as", w.as.TokenRequests())
	}
}

func TestCrossAppAccessWithoutAnIdentityProviderSaysSo(t *testing.T) {
	idp := oauthfixture.StartIdP(t, oauthfixture.IdPConfig{ClientID: "relay-at-idp", ResourceClientID: "relay-at-as"})
	w := newWorld(t, oauthfixture.AuthConfig{TrustedIdP: idp, Clients: []oauthfixture.Client{{ID: "relay-at-as", Secret: machineSecret}}}, readScope)
	w.configureMachine("ann", "s1", store.OAuthMachine{Grant: store.MachineCrossApp, ClientID: "relay-at-as",
		AuthMethod: "client_secret_basic", Secret: machineSecret})
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.Await("failed for want of an identity provider", func(s conn.State) bool {
		return s.State == wire.StateFailed && s.Auth != nil && strings.Contains(s.Auth.Error, "cross-app access is not configured")
	})
	if n := len(w.as.TokenRequests()); n != 0 {
		t.Errorf("%d token requests, want none", n)
	}
}

func TestCheckMachine(t *testing.T) {
	_, keyPEM := ecKeyPEM(t)
	ok := store.OAuthMachine{Grant: store.MachineClientCredentials, ClientID: "svc", AuthMethod: "client_secret_basic", Secret: machineSecret}
	tests := []struct {
		name    string
		change  func(*store.OAuthMachine)
		wantErr string
	}{
		{name: "secret with basic", change: func(*store.OAuthMachine) {}},
		{name: "key with private_key_jwt", change: func(m *store.OAuthMachine) { m.AuthMethod, m.Secret = "private_key_jwt", keyPEM }},
		{name: "key with its algorithm", change: func(m *store.OAuthMachine) { m.AuthMethod, m.Secret, m.SigningAlg = "private_key_jwt", keyPEM, "ES256" }},
		{name: "key with another algorithm", change: func(m *store.OAuthMachine) { m.AuthMethod, m.Secret, m.SigningAlg = "private_key_jwt", keyPEM, "RS256" },
			wantErr: "does not suit"},
		{name: "secret as a key", change: func(m *store.OAuthMachine) { m.AuthMethod = "private_key_jwt" }, wantErr: "not PEM"},
		{name: "algorithm without a key", change: func(m *store.OAuthMachine) { m.SigningAlg = "ES256" }, wantErr: "only with private_key_jwt"},
		{name: "unknown grant", change: func(m *store.OAuthMachine) { m.Grant = "password" }, wantErr: "unknown grant"},
		{name: "unknown method", change: func(m *store.OAuthMachine) { m.AuthMethod = "none" }, wantErr: "unknown client authentication"},
		{name: "no client id", change: func(m *store.OAuthMachine) { m.ClientID = "" }, wantErr: "client id"},
		{name: "no secret", change: func(m *store.OAuthMachine) { m.Secret = "" }, wantErr: "secret or a private key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := ok
			tt.change(&m)
			err := oauth.CheckMachine(m)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("CheckMachine = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("CheckMachine = %v, want an error with %q", err, tt.wantErr)
			case err != nil && (strings.Contains(err.Error(), machineSecret) || strings.Contains(err.Error(), "PRIVATE KEY")):
				t.Fatalf("CheckMachine error %q holds the secret", err)
			}
		})
	}
}

func TestMachineAccessGivenWhileAServerWaitsForAPersonIsUsed(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{ClientCredentials: true,
		Clients: []oauthfixture.Client{{ID: "svc", Secret: machineSecret}}}, readScope)
	ctx := context.Background()
	if err := w.st.PutServer(ctx, store.Server{User: "ann", ID: "s1", Name: "s1", URL: w.rs.URL(), Transport: string(wire.TransportStreamable)}); err != nil {
		t.Fatal(err)
	}
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	w.mgr.Recheck(ctx) // nothing to apply yet
	if st, _ := w.mgr.For("ann", "s1", w.rs.URL()).Watch(); !st.Required {
		t.Fatal("Recheck without machine access stopped the wait for a person")
	}
	err := w.oauth.PutMachine(ctx, store.OAuthMachine{User: "ann", Server: "s1", Grant: store.MachineClientCredentials,
		ClientID: "svc", AuthMethod: "client_secret_basic", Secret: machineSecret})
	if err != nil {
		t.Fatal(err)
	}
	w.mgr.Recheck(ctx)
	r.AwaitState(wire.StateReady)
	if n := len(machineRequests(w.as, "client_credentials")); n != 1 {
		t.Errorf("%d client credentials grants, want 1", n)
	}
	if n := w.as.Stats().Authorizations; n != 0 {
		t.Errorf("%d authorization requests, want none", n)
	}
}

func TestMachineAccessAsksForTheScopeAToolNeeds(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{ClientCredentials: true,
		Clients: []oauthfixture.Client{{ID: "svc", Secret: machineSecret}}}, adminScope)
	w.configureMachine("ann", "s1", store.OAuthMachine{Grant: store.MachineClientCredentials, ClientID: "svc",
		AuthMethod: "client_secret_basic", Secret: machineSecret})
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateReady)
	if err := <-callAdmin(c); err != nil {
		t.Fatalf("admin call: %v", err)
	}
	reqs := machineRequests(w.as, "client_credentials")
	if len(reqs) != 2 {
		t.Fatalf("%d client credentials grants, want 2 (connect, then the admin scope): %+v", len(reqs), reqs)
	}
	if scopes := strings.Fields(reqs[1].Scope); !slices.Contains(scopes, "mcp:read") || !slices.Contains(scopes, "mcp:admin") {
		t.Errorf("second grant asked for %v, want mcp:read and mcp:admin", scopes)
	}
	echo(t, c, "still works")
	neverAskedAPerson(t, r)
}
