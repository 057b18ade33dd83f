package conformance

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Fixture values.
const (
	fixtureCode  = "code-1"
	fixtureToken = "token-1"
	dynamicID    = "registered-client"
)

// authFixture is an MCP server that requires a bearer token and the
// authorization server that issues it, both real HTTP servers on
// 127.0.0.1, playing the suite's mock authorization flow: the authorization
// endpoint redirects at once with a code.
type authFixture struct {
	mcpURL string
	asURL  string

	// preRegistered, when set, disables dynamic registration and makes the
	// token endpoint require these client_secret_basic credentials.
	preRegistered *Context
	// refuse makes the authorization endpoint redirect with access_denied.
	refuse bool

	mu        sync.Mutex
	authorize []url.Values // the queries of authorization requests
	tokenAuth string       // the client the token request authenticated as
	challenge string       // the last PKCE challenge
}

// newAuthFixture starts both servers; mcpServer serves the MCP requests
// that carry the token.
func newAuthFixture(t *testing.T, s *mcp.Server, configure func(*authFixture)) *authFixture {
	t.Helper()
	f := &authFixture{}
	if configure != nil {
		configure(f)
	}
	as := httptest.NewServer(f.authServer())
	t.Cleanup(as.Close)
	f.asURL = as.URL

	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	mux := http.NewServeMux()
	var srv *httptest.Server
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{f.asURL}})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+fixtureToken {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f.mcpURL = srv.URL + "/mcp"
	return f
}

// authServer serves metadata, registration, authorization and token.
func (f *authFixture) authServer() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		meta := map[string]any{
			"issuer":                                f.asURL,
			"authorization_endpoint":                f.asURL + "/authorize",
			"token_endpoint":                        f.asURL + "/token",
			"response_types_supported":              []string{"code"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"},
		}
		if f.preRegistered != nil {
			meta["token_endpoint_auth_methods_supported"] = []string{"client_secret_basic"}
		} else {
			meta["registration_endpoint"] = f.asURL + "/register"
		}
		writeJSON(w, http.StatusOK, meta)
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		writeJSON(w, http.StatusCreated, map[string]any{"client_id": dynamicID, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		f.mu.Lock()
		f.authorize = append(f.authorize, q)
		f.challenge = q.Get("code_challenge")
		f.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		answer := url.Values{"state": {q.Get("state")}, "code": {fixtureCode}}
		if f.refuse {
			answer = url.Values{"state": {q.Get("state")}, "error": {"access_denied"}}
		}
		back.RawQuery = answer.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		f.mu.Lock()
		pkce := base64.RawURLEncoding.EncodeToString(sum[:]) == f.challenge
		id, secret, basic := r.BasicAuth()
		if basic {
			f.tokenAuth = id + ":" + secret
		} else {
			f.tokenAuth = r.PostForm.Get("client_id")
		}
		f.mu.Unlock()
		clientOK := f.preRegistered == nil || (basic && id == f.preRegistered.ClientID && secret == f.preRegistered.ClientSecret)
		if r.PostForm.Get("code") != fixtureCode || !pkce || !clientOK {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"access_token": fixtureToken, "token_type": "Bearer", "expires_in": 3600})
	})
	return mux
}

// authorizations returns the queries of the authorization requests so far.
func (f *authFixture) authorizations() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.Values(nil), f.authorize...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
