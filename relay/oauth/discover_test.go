package oauth

import (
	"context"
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
