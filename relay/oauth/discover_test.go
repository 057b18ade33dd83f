package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/relay/store"
)

// testManager is a manager for discovery alone.
func testManager(t *testing.T) *Manager {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// The OAuth records belong to a registered server.
	if err := st.PutServer(context.Background(), store.Server{User: "ada", ID: "legacy", Name: "legacy", URL: "http://127.0.0.1/mcp", Transport: "auto"}); err != nil {
		t.Fatal(err)
	}
	sealer, err := store.NewSealer(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewManager(Config{Store: st.OAuth(sealer), HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0), CallbackURL: "http://127.0.0.1:1/oauth/callback"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// wellKnown keeps the well-known paths of paths, in order.
func wellKnown(paths []string) []string {
	var out []string
	for _, p := range paths {
		if strings.Contains(p, "/.well-known/") {
			out = append(out, p)
		}
	}
	return out
}

func TestDiscoveryFollowsTheSpecificationsOrder(t *testing.T) {
	for _, tc := range []struct {
		name          string
		as            oauthfixture.AuthConfig
		rs            oauthfixture.ResourceConfig
		fromChallenge bool
		rsPaths       []string
		asPaths       []string
	}{
		{
			name:          "metadata URL from the challenge",
			rs:            oauthfixture.ResourceConfig{PRM: oauthfixture.PRMRoot},
			fromChallenge: true,
			rsPaths:       []string{"/.well-known/oauth-protected-resource"},
			asPaths:       []string{"/.well-known/oauth-authorization-server"},
		},
		{
			name:    "path-based before root",
			rs:      oauthfixture.ResourceConfig{PRM: oauthfixture.PRMRoot},
			rsPaths: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"},
			asPaths: []string{"/.well-known/oauth-authorization-server"},
		},
		{
			name:    "path-based found first",
			rs:      oauthfixture.ResourceConfig{},
			rsPaths: []string{"/.well-known/oauth-protected-resource/mcp"},
			asPaths: []string{"/.well-known/oauth-authorization-server"},
		},
		{
			name:    "OpenID Connect after RFC 8414",
			as:      oauthfixture.AuthConfig{Metadata: oauthfixture.MetadataOIDC},
			rsPaths: []string{"/.well-known/oauth-protected-resource/mcp"},
			asPaths: []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"},
		},
		{
			name: "issuer with a path",
			as:   oauthfixture.AuthConfig{Metadata: oauthfixture.MetadataOIDC, PathPrefix: "/tenant1"},
			asPaths: []string{
				"/.well-known/oauth-authorization-server/tenant1",
				"/.well-known/openid-configuration/tenant1",
			},
			rsPaths: []string{"/.well-known/oauth-protected-resource/mcp"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := oauthfixture.StartAuthServer(t, tc.as)
			tc.rs.AuthServer = as
			rs := oauthfixture.StartResource(t, tc.rs)
			metadataURL := ""
			if tc.fromChallenge {
				metadataURL = rs.MetadataURL()
			}
			d, err := testManager(t).discover(context.Background(), rs.URL(), metadataURL)
			if err != nil {
				t.Fatalf("discover: %v", err)
			}
			if d.issuer() != as.Issuer() {
				t.Errorf("issuer %q, want %q", d.issuer(), as.Issuer())
			}
			var rsPaths []string
			for _, req := range rs.Requests() {
				rsPaths = append(rsPaths, req.Path)
			}
			if got := wellKnown(rsPaths); !slices.Equal(got, tc.rsPaths) {
				t.Errorf("resource metadata requests %v, want %v", got, tc.rsPaths)
			}
			if got := wellKnown(as.Paths()); !slices.Equal(got, tc.asPaths) {
				t.Errorf("authorization server metadata requests %v, want %v", got, tc.asPaths)
			}
		})
	}
}

func TestDiscoveryWithoutResourceMetadataUsesTheServersOrigin(t *testing.T) {
	// The 2025-03-26 rule: the MCP server's origin is the authorization
	// server. The fixture resource cannot also be one, so a plain server
	// plays both parts here.
	as := oauthfixture.StartAuthServer(t, oauthfixture.AuthConfig{})
	d, err := testManager(t).discover(context.Background(), as.URL()+"/mcp", "")
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	if d.issuer() != as.Issuer() || d.resource != as.URL()+"/mcp" {
		t.Errorf("issuer %q resource %q", d.issuer(), d.resource)
	}
}

func TestDiscoveryRefusesAnAuthorizationServerWithoutPKCE(t *testing.T) {
	as := oauthfixture.StartAuthServer(t, oauthfixture.AuthConfig{NoPKCE: true})
	rs := oauthfixture.StartResource(t, oauthfixture.ResourceConfig{AuthServer: as})
	_, err := testManager(t).discover(context.Background(), rs.URL(), "")
	if err == nil || !strings.Contains(err.Error(), "PKCE") {
		t.Fatalf("discover: %v, want a PKCE refusal", err)
	}
	if n := as.Stats().Authorizations; n != 0 {
		t.Errorf("%d authorization requests", n)
	}
}

func TestDiscoveryRefusesMetadataOfAnotherResource(t *testing.T) {
	for _, other := range []string{"http://127.0.0.1:1/mcp", "https://elsewhere.example/mcp"} {
		as := oauthfixture.StartAuthServer(t, oauthfixture.AuthConfig{})
		rs := oauthfixture.StartResource(t, oauthfixture.ResourceConfig{AuthServer: as, Resource: other})
		_, err := testManager(t).discover(context.Background(), rs.URL(), rs.MetadataURL())
		if err == nil || !strings.Contains(err.Error(), "not this server") {
			t.Errorf("resource %s: discover: %v, want a mismatch refusal", other, err)
		}
		if paths := wellKnown(as.Paths()); len(paths) != 0 {
			t.Errorf("resource %s: the authorization server was asked %v", other, paths)
		}
	}
}

func TestDiscoveryRefusesAnIssuerMismatch(t *testing.T) {
	as := oauthfixture.StartAuthServer(t, oauthfixture.AuthConfig{IssuerOverride: "https://impostor.example"})
	rs := oauthfixture.StartResource(t, oauthfixture.ResourceConfig{AuthServer: as})
	if _, err := testManager(t).discover(context.Background(), rs.URL(), ""); err == nil {
		t.Fatal("discover accepted metadata naming another issuer")
	}
}

func TestDiscoverySkipsAWebPageServedAtAWellKnownPath(t *testing.T) {
	as := oauthfixture.StartAuthServer(t, oauthfixture.AuthConfig{})
	rs := oauthfixture.StartResource(t, oauthfixture.ResourceConfig{AuthServer: as, PRM: oauthfixture.PRMRoot})
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html>app</html>"))
	}))
	defer page.Close()
	// The challenge points at a page; the well-known URLs come next.
	d, err := testManager(t).discover(context.Background(), rs.URL(), page.URL+"/meta")
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	if d.issuer() != as.Issuer() {
		t.Errorf("issuer %q", d.issuer())
	}
}

func TestResourceCoversTheServer(t *testing.T) {
	for _, tc := range []struct {
		resource, server string
		want             bool
	}{
		{"http://h:1/mcp", "http://h:1/mcp", true},
		{"http://h:1/mcp/", "http://h:1/mcp", true},
		{"http://h:1", "http://h:1/mcp", true},
		{"HTTP://H:1/", "http://h:1/mcp", true},
		{"http://h:1/api", "http://h:1/api/mcp", true},
		{"http://h:1/mc", "http://h:1/mcp", false},
		{"http://h:1/mcp/sub", "http://h:1/mcp", false},
		{"http://h:2/mcp", "http://h:1/mcp", false},
		{"https://h:1/mcp", "http://h:1/mcp", false},
		{"http://other:1/mcp", "http://h:1/mcp", false},
		{"http://h:1/mcp?x=1", "http://h:1/mcp", false},
		{"", "http://h:1/mcp", false},
		{"javascript:alert(1)", "http://h:1/mcp", false},
	} {
		if got := covers(tc.resource, tc.server); got != tc.want {
			t.Errorf("covers(%q, %q) = %v, want %v", tc.resource, tc.server, got, tc.want)
		}
	}
}

func TestResourceMetadataURLsInOrder(t *testing.T) {
	for _, tc := range []struct {
		server, challenge string
		want              []string
	}{
		{"https://h/mcp", "", []string{"https://h/.well-known/oauth-protected-resource/mcp", "https://h/.well-known/oauth-protected-resource"}},
		{"https://h", "", []string{"https://h/.well-known/oauth-protected-resource"}},
		{"https://h/a/b", "https://h/meta", []string{"https://h/meta", "https://h/.well-known/oauth-protected-resource/a/b", "https://h/.well-known/oauth-protected-resource"}},
		{"https://h/mcp", "javascript:alert(1)", []string{"https://h/.well-known/oauth-protected-resource/mcp", "https://h/.well-known/oauth-protected-resource"}},
		{"https://h/mcp", "http://evil.example/meta", []string{"https://h/.well-known/oauth-protected-resource/mcp", "https://h/.well-known/oauth-protected-resource"}},
	} {
		if got := resourceMetadataURLs(tc.server, tc.challenge); !slices.Equal(got, tc.want) {
			t.Errorf("resourceMetadataURLs(%q, %q) = %v, want %v", tc.server, tc.challenge, got, tc.want)
		}
	}
}

func TestMetadataErrorsAreNotMistakenForAbsence(t *testing.T) {
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusBadGateway)
	}))
	defer failing.Close()
	_, err := testManager(t).discover(context.Background(), failing.URL+"/mcp", "")
	var ue *userError
	if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), "502") {
		t.Errorf("discover against a failing server: %v", err)
	}
}

func TestDiscoveryWithoutResourceMetadataAcceptsAnIssuerOnTheServersOrigin(t *testing.T) {
	// A server of the 2025-03-26 revision: metadata at the origin's root
	// well-known URL, naming the issuer <origin>/oauth.
	as := oauthfixture.StartAuthServer(t, oauthfixture.AuthConfig{PathPrefix: "/oauth", MetadataAtRoot: true})
	d, err := testManager(t).discover(context.Background(), as.URL()+"/mcp", "")
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	if d.issuer() != as.URL()+"/oauth" || d.asm.AuthorizationEndpoint != as.URL()+"/oauth/authorize" || d.resource != as.URL()+"/mcp" {
		t.Errorf("issuer %q, authorization endpoint %q, resource %q", d.issuer(), d.asm.AuthorizationEndpoint, d.resource)
	}
	want := []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server"}
	if got := wellKnown(as.Paths()); !slices.Equal(got, want) {
		t.Errorf("requests %v, want %v", got, want)
	}
}

func TestDiscoveryWithoutResourceMetadataRefusesMetadataOffTheServersOrigin(t *testing.T) {
	for _, tc := range []struct {
		name, field, value string // value's HOST is the server's host:port
		want               string // in the error; "" for none
	}{
		{name: "everything on the origin"},
		{name: "issuer at the origin's root", field: "issuer", value: "http://HOST/"},
		{name: "issuer elsewhere", field: "issuer", value: "https://accounts.example", want: "issuer"},
		{name: "issuer on another port", field: "issuer", value: "http://127.0.0.1:1/oauth", want: "issuer"},
		{name: "issuer with another scheme", field: "issuer", value: "https://HOST/oauth", want: "issuer"},
		{name: "issuer with credentials", field: "issuer", value: "http://HOST@accounts.example/oauth", want: "issuer"},
		{name: "no issuer", field: "issuer", value: "", want: "issuer"},
		{name: "authorization endpoint elsewhere", field: "authorization_endpoint", value: "https://accounts.example/authorize", want: "authorization endpoint"},
		{name: "token endpoint elsewhere", field: "token_endpoint", value: "https://accounts.example/token", want: "token endpoint"},
		{name: "registration endpoint elsewhere", field: "registration_endpoint", value: "https://accounts.example/register", want: "registration endpoint"},
		{name: "no PKCE methods", field: "code_challenge_methods_supported", value: "", want: "PKCE"},
		{name: "only plain PKCE", field: "code_challenge_methods_supported", value: "plain", want: "PKCE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/.well-known/oauth-authorization-server" {
					http.NotFound(w, r)
					return
				}
				base := "http://" + r.Host
				meta := map[string]any{
					"issuer":                           base + "/oauth",
					"authorization_endpoint":           base + "/oauth/authorize",
					"token_endpoint":                   base + "/oauth/token",
					"registration_endpoint":            base + "/oauth/register",
					"code_challenge_methods_supported": []string{"S256"},
				}
				switch {
				case tc.field == "code_challenge_methods_supported" && tc.value == "":
					delete(meta, tc.field)
				case tc.field == "code_challenge_methods_supported":
					meta[tc.field] = []string{tc.value}
				case tc.field != "":
					meta[tc.field] = strings.ReplaceAll(tc.value, "HOST", r.Host)
				}
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(meta)
			}))
			defer srv.Close()
			_, err := testManager(t).discover(context.Background(), srv.URL+"/mcp", "")
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("discover: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("discover: %v, want a refusal naming %q", err, tc.want)
			}
		})
	}
}

func TestDiscoveryWithoutAnyMetadataFallsBackToTheDefaultEndpoints(t *testing.T) {
	as := oauthfixture.StartAuthServer(t, oauthfixture.AuthConfig{Metadata: oauthfixture.MetadataNone})
	d, err := testManager(t).discover(context.Background(), as.URL()+"/v1/mcp", "")
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	got := []string{d.issuer(), d.asm.AuthorizationEndpoint, d.asm.TokenEndpoint, d.asm.RegistrationEndpoint}
	want := []string{as.URL(), as.URL() + "/authorize", as.URL() + "/token", as.URL() + "/register"}
	if !slices.Equal(got, want) {
		t.Errorf("issuer and endpoints %v, want %v", got, want)
	}
	if !slices.Equal(d.asm.CodeChallengeMethodsSupported, []string{"S256"}) {
		t.Errorf("PKCE methods %v, want S256 assumed", d.asm.CodeChallengeMethodsSupported)
	}
	// Metadata is looked for first, at the origin's root.
	wantPaths := []string{
		"/.well-known/oauth-protected-resource/v1/mcp", "/.well-known/oauth-protected-resource",
		"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration",
	}
	if got := wellKnown(as.Paths()); !slices.Equal(got, wantPaths) {
		t.Errorf("requests %v, want %v", got, wantPaths)
	}
}

func TestDiscoveryWithoutResourceMetadataDoesNotFallBackWhenMetadataFails(t *testing.T) {
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-authorization-server" {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		http.NotFound(w, r)
	}))
	defer failing.Close()
	d, err := testManager(t).discover(context.Background(), failing.URL+"/mcp", "")
	if err == nil || !strings.Contains(err.Error(), "502") {
		t.Errorf("discover: %v, %v; want the metadata's failure, not the default endpoints", d, err)
	}
}

func TestAuthorizationOfAServerWithoutResourceMetadataCompletes(t *testing.T) {
	for _, tc := range []struct {
		name string
		as   oauthfixture.AuthConfig
	}{
		{"metadata with an issuer under the origin", oauthfixture.AuthConfig{PathPrefix: "/oauth", MetadataAtRoot: true}},
		{"default endpoints", oauthfixture.AuthConfig{Metadata: oauthfixture.MetadataNone}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			as := oauthfixture.StartAuthServer(t, tc.as)
			m := testManager(t)
			m.For("ada", "legacy", as.URL()+"/mcp")
			authURL, err := m.Authorize(ctx, "ada", "legacy")
			if err != nil {
				t.Fatalf("Authorize: %v", err)
			}
			if !strings.HasPrefix(authURL, as.Issuer()+"/authorize?") {
				t.Errorf("authorization URL %s, want the endpoint of %s", authURL, as.Issuer())
			}
			callback, err := oauthfixture.Approve(ctx, authURL)
			if err != nil {
				t.Fatalf("approve: %v", err)
			}
			if err := m.Callback(ctx, callback); err != nil {
				t.Fatalf("Callback: %v", err)
			}
			tok, ok, err := m.store.Token(ctx, "ada", "legacy")
			if err != nil || !ok {
				t.Fatalf("token: %v, %v", ok, err)
			}
			if tok.Issuer != as.Issuer() || tok.TokenEndpoint != as.Issuer()+"/token" {
				t.Errorf("token of issuer %q from %q", tok.Issuer, tok.TokenEndpoint)
			}
			if s := as.Stats(); s.Registrations != 1 || s.Codes != 1 {
				t.Errorf("stats %+v, want one registration and one code", s)
			}
			if reqs := as.AuthRequests(); len(reqs) != 1 || reqs[0].Query.Get("code_challenge_method") != "S256" {
				t.Errorf("authorization requests %v, want one with S256", reqs)
			}
		})
	}
}
