package demohost

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/authn"
)

func TestTokensOfTheDemoSiteVerifyAsItsUsers(t *testing.T) {
	h, err := New(Config{RelayURL: "http://127.0.0.1:8080", Audience: "switchboard"})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := h.PublicKeyPEM()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "host.pem")
	if err := os.WriteFile(file, pub, 0o600); err != nil {
		t.Fatal(err)
	}
	keys, err := authn.LoadHostKeys(file)
	if err != nil {
		t.Fatal(err)
	}
	v := authn.NewVerifier(authn.VerifierConfig{Audience: "switchboard", Issuer: "switchboard", HostKeys: keys, HostIssuer: Issuer})

	srv := httptest.NewServer(h)
	defer srv.Close()
	post := func(form url.Values) (int, string) {
		resp, err := http.PostForm(srv.URL+"/token", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, tok := post(url.Values{"user": {"bob"}, "ttl": {"60"}})
	if code != http.StatusOK {
		t.Fatalf("token endpoint %d: %s", code, tok)
	}
	claims, err := v.Verify(tok)
	if err != nil || claims.User != authn.HostUserPrefix+"bob" {
		t.Fatalf("claims %+v, %v; want host:bob", claims, err)
	}
	for _, bad := range []url.Values{{}, {"user": {"bob"}, "ttl": {"0"}}, {"user": {"bob"}, "ttl": {"99999"}}, {"user": {strings.Repeat("x", 65)}}} {
		if code, _ := post(bad); code != http.StatusBadRequest {
			t.Errorf("form %v: status %d, want 400", bad, code)
		}
	}

	resp, err := http.Get(srv.URL + "/?user=%3Cscript%3E&view=questions")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(page), `src="http://127.0.0.1:8080/embed.js"`) || strings.Contains(string(page), "<script>") {
		t.Errorf("the host page must load the relay's embed.js and escape what it is given:\n%s", page)
	}
}
