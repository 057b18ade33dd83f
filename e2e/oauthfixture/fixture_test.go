package oauthfixture_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
)

const redirect = "http://127.0.0.1:1/callback"

// register registers a client and returns its id and secret.
func register(t *testing.T, as *oauthfixture.AuthServer, method string) (id, secret string) {
	t.Helper()
	body := `{"redirect_uris":["` + redirect + `"],"token_endpoint_auth_method":"` + method + `"}`
	resp, err := http.Post(as.Issuer()+"/register", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var reg struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		Method       string `json:"token_endpoint_auth_method"`
	}
	if resp.StatusCode != http.StatusCreated || json.NewDecoder(resp.Body).Decode(&reg) != nil || reg.ClientID == "" {
		t.Fatalf("register: %s", resp.Status)
	}
	if reg.Method != method || (method == oauthfixture.MethodNone) != (reg.ClientSecret == "") {
		t.Fatalf("registration %+v for method %s", reg, method)
	}
	return reg.ClientID, reg.ClientSecret
}

const verifier = "0123456789012345678901234567890123456789abcdefgh"

func challenge(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// authURL is an authorization URL for client.
func authURL(as *oauthfixture.AuthServer, client, resource, scope string) string {
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "state": {"st"},
		"code_challenge": {challenge(verifier)}, "code_challenge_method": {"S256"}, "resource": {resource}, "scope": {scope}}
	return as.Issuer() + "/authorize?" + q.Encode()
}

// token posts a token request.
func token(t *testing.T, as *oauthfixture.AuthServer, form url.Values, id, secret string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", as.Issuer()+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if secret != "" {
		req.SetBasicAuth(id, secret)
	} else {
		form.Set("client_id", id)
		req.Body = io.NopCloser(strings.NewReader(form.Encode()))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func TestAuthServerIssuesTokensOnlyAgainstTheRightVerifierAndResource(t *testing.T) {
	as := oauthfixture.StartAuthServer(t, oauthfixture.AuthConfig{TokenLifetime: 90 * time.Second})
	id, secret := register(t, as, oauthfixture.MethodBasic)
	ctx := context.Background()
	exchange := func(v, resource string) (int, map[string]any) {
		cb, err := oauthfixture.Approve(ctx, authURL(as, id, "http://127.0.0.1:9/mcp", "mcp:read offline_access"))
		if err != nil {
			t.Fatal(err)
		}
		if cb.Query().Get("state") != "st" {
			t.Fatalf("callback %s lost the state", cb)
		}
		return token(t, as, url.Values{"grant_type": {"authorization_code"}, "code": {cb.Query().Get("code")},
			"redirect_uri": {redirect}, "code_verifier": {v}, "resource": {resource}}, id, secret)
	}
	if status, body := exchange("wrong-verifier-0123456789012345678901234567890", "http://127.0.0.1:9/mcp"); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
		t.Errorf("wrong verifier: %d %v", status, body)
	}
	if status, body := exchange(verifier, "http://127.0.0.1:9/other"); status != http.StatusBadRequest || body["error"] != "invalid_target" {
		t.Errorf("other resource: %d %v", status, body)
	}
	status, body := exchange(verifier, "http://127.0.0.1:9/mcp")
	if status != http.StatusOK || body["access_token"] == nil || body["refresh_token"] == nil || body["scope"] != "mcp:read offline_access" || body["expires_in"] != float64(90) {
		t.Fatalf("exchange: %d %v", status, body)
	}
	info, ok := as.Verify(body["access_token"].(string))
	if !ok || info.Resource != "http://127.0.0.1:9/mcp" || info.ClientID != id {
		t.Errorf("token info %+v", info)
	}

	// Refresh tokens rotate: the old one is refused afterwards.
	rt := body["refresh_token"].(string)
	refresh := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "resource": {"http://127.0.0.1:9/mcp"}}
	if status, fresh := token(t, as, refresh, id, secret); status != http.StatusOK || fresh["refresh_token"] == rt {
		t.Errorf("refresh: %d %v", status, fresh)
	}
	if status, again := token(t, as, refresh, id, secret); status != http.StatusBadRequest || again["error"] != "invalid_grant" {
		t.Errorf("reused refresh token: %d %v", status, again)
	}
	if status, _ := token(t, as, refresh, id, "wrong-secret"); status != http.StatusUnauthorized {
		t.Errorf("wrong secret: %d", status)
	}
	if st := as.Stats(); st.Registrations != 1 || st.Codes != 1 || st.Refreshes != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestAuthServerRefusesRequestsWithoutPKCEOrResource(t *testing.T) {
	as := oauthfixture.StartAuthServer(t, oauthfixture.AuthConfig{})
	id, _ := register(t, as, oauthfixture.MethodNone)
	ctx := context.Background()
	for name, mutate := range map[string]func(url.Values){
		"no challenge":  func(q url.Values) { q.Del("code_challenge") },
		"plain method":  func(q url.Values) { q.Set("code_challenge_method", "plain") },
		"no resource":   func(q url.Values) { q.Del("resource") },
		"unknown scope": func(q url.Values) { q.Set("scope", "root") },
		"implicit flow": func(q url.Values) { q.Set("response_type", "token") },
	} {
		u, _ := url.Parse(authURL(as, id, "http://127.0.0.1:9/mcp", "mcp:read"))
		q := u.Query()
		mutate(q)
		u.RawQuery = q.Encode()
		cb, err := oauthfixture.Approve(ctx, u.String())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if cb.Query().Get("error") == "" || cb.Query().Get("code") != "" {
			t.Errorf("%s: callback %s, want an error and no code", name, cb)
		}
	}
	// An unregistered redirect URI is not redirected to at all.
	u := strings.Replace(authURL(as, id, "http://127.0.0.1:9/mcp", ""), url.QueryEscape(redirect), url.QueryEscape("http://evil.example/cb"), 1)
	if _, err := oauthfixture.Approve(ctx, u); err == nil {
		t.Error("the server redirected to an unregistered redirect URI")
	}
}

func TestConsentPageHasApproveAndDenyButtons(t *testing.T) {
	as := oauthfixture.StartAuthServer(t, oauthfixture.AuthConfig{})
	id, _ := register(t, as, oauthfixture.MethodNone)
	resp, err := http.Get(authURL(as, id, "http://127.0.0.1:9/mcp", "mcp:read"))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`id="approve"`, `id="deny"`, "mcp:read", id} {
		if !strings.Contains(string(page), want) {
			t.Errorf("consent page lacks %q", want)
		}
	}
	request := regexp.MustCompile(`name="request" value="([^"]+)"`).FindSubmatch(page)
	if request == nil {
		t.Fatal("no request id on the page")
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	decide := func(decision string) *url.URL {
		resp, err := noFollow.PostForm(as.Issuer()+"/authorize/decision", url.Values{"request": {string(request[1])}, "decision": {decision}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			return nil
		}
		loc, _ := resp.Location()
		return loc
	}
	if loc := decide("deny"); loc == nil || loc.Query().Get("error") != "access_denied" || loc.Query().Get("state") != "st" {
		t.Errorf("deny went to %v", loc)
	}
	if loc := decide("approve"); loc != nil {
		t.Errorf("a decided request was decided again: %v", loc)
	}
}

func TestResourceChallengesAndPublishesItsMetadata(t *testing.T) {
	as := oauthfixture.StartAuthServer(t, oauthfixture.AuthConfig{})
	rs := oauthfixture.StartResource(t, oauthfixture.ResourceConfig{AuthServer: as, Scopes: []string{"mcp:read"}, ScopesSupported: []string{"mcp:read"}})
	resp, err := http.Post(rs.URL(), "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	challenge := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(challenge, `resource_metadata="`+rs.MetadataURL()+`"`) || !strings.Contains(challenge, `scope="mcp:read"`) {
		t.Errorf("%d with challenge %q", resp.StatusCode, challenge)
	}
	resp, err = http.Get(rs.MetadataURL())
	if err != nil {
		t.Fatal(err)
	}
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	json.NewDecoder(resp.Body).Decode(&prm)
	resp.Body.Close()
	if prm.Resource != rs.URL() || len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != as.Issuer() {
		t.Errorf("metadata %+v", prm)
	}
}
