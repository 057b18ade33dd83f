package agentauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// maxPending bounds the authorizations waiting for a person.
const maxPending = 1024

// request is an authorization waiting for the person's consent, then,
// approved, for its code. The store keeps it as JSON (ID and Expires are
// the row's).
type request struct {
	ID          string `json:"-"`
	Client      client
	RedirectURI string
	State       string
	Challenge   string // PKCE S256 code challenge
	Issuer      string
	Resource    string
	Only        string    // the server of a /mcp/s/<id> resource
	AllServers  bool      // every server requested
	Servers     []string  // else these
	Expires     time.Time `json:"-"`
	Approved    *approval `json:",omitempty"` // what the person approved; nil while pending
}

// serveAuthorize checks an authorization request and sends the browser to
// the dashboard's consent page. A request whose client or redirect URI is
// wrong gets an error page (it must not redirect); any other error goes
// back to the client's redirect URI.
func (s *Server) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	if !s.authorize.allow(remoteHost(r)) {
		w.Header().Set("Retry-After", "10")
		errorPage(w, http.StatusTooManyRequests, "Too many authorization requests from this address; try again in a minute.")
		return
	}
	q := r.URL.Query()
	c, err := s.lookupClient(r.Context(), q.Get("client_id"))
	if err != nil {
		s.cfg.Logger.Info("authorize: client refused", "err", err)
		// The reason stays in the log: a fetch's error would tell anyone
		// what answers at the address they named.
		errorPage(w, http.StatusBadRequest, "This application is not known to Switchboard, or its metadata document could not be used. Nothing was authorized.")
		return
	}
	redirect, ok := c.matchRedirect(q.Get("redirect_uri"))
	if !ok {
		errorPage(w, http.StatusBadRequest, "This application asked to be sent to an address it did not register (redirect_uri). Nothing was authorized.")
		return
	}
	if !c.Document {
		// A registration names whatever redirects it likes: the host that
		// counts is the one this request sends the person back to.
		c.Host = hostOf(redirect)
	}
	iss := s.Issuer(r)
	req := &request{Client: c, RedirectURI: redirect, State: q.Get("state"), Issuer: iss}
	if e := s.checkAuthorize(q, req); e != nil {
		http.Redirect(w, r, req.errorRedirect(e), http.StatusSeeOther)
		return
	}
	req.ID = randomID()
	req.Expires = s.cfg.Now().Add(s.cfg.RequestTTL)
	switch err := s.addRequest(r.Context(), req); {
	case errors.Is(err, store.ErrTooManyPending):
		http.Redirect(w, r, req.errorRedirect(fail("temporarily_unavailable", "too many authorizations are waiting")), http.StatusSeeOther)
		return
	case err != nil:
		s.cfg.Logger.Error("authorize: keep the request", "err", err)
		http.Redirect(w, r, req.errorRedirect(fail("server_error", "the authorization request could not be kept")), http.StatusSeeOther)
		return
	}
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, ConsentPath+"?"+ConsentParam+"="+url.QueryEscape(req.ID), http.StatusSeeOther)
}

// checkAuthorize checks the protocol parameters and fills req from them.
func (s *Server) checkAuthorize(q url.Values, req *request) *oauthError {
	switch {
	case q.Get("response_type") != "code":
		return fail("unsupported_response_type", "only the code response type is supported")
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		return fail("invalid_request", "PKCE with code_challenge_method S256 is required")
	case len(q.Get("code_challenge")) < 43 || len(q.Get("code_challenge")) > 128:
		return fail("invalid_request", "the code challenge has the wrong length")
	}
	req.Challenge = q.Get("code_challenge")
	only, ok := s.endpointOf(req.Issuer, q.Get("resource"))
	if !ok {
		return fail("invalid_target", "the resource must be this relay's agent endpoint ("+req.Issuer+s.cfg.Endpoint+" or "+req.Issuer+s.cfg.ServerEndpoint+"<id>)")
	}
	req.Resource, req.Only = q.Get("resource"), only
	all, servers, e := parseScope(q.Get("scope"))
	if e != nil {
		return e
	}
	switch {
	case only != "":
		req.Servers = []string{only}
	case all || len(servers) == 0:
		req.AllServers = true
	default:
		req.Servers = servers
	}
	return nil
}

// endpointOf checks that resource names the agent endpoint under issuer
// and returns its server (empty for the aggregate endpoint).
func (s *Server) endpointOf(issuer, resource string) (only string, ok bool) {
	path, found := strings.CutPrefix(resource, issuer)
	switch {
	case !found:
		return "", false
	case path == s.cfg.Endpoint, s.cfg.CodeEndpoint != "" && path == s.cfg.CodeEndpoint:
		return "", true
	}
	id, found := strings.CutPrefix(path, s.cfg.ServerEndpoint)
	if !found || id == "" || strings.ContainsAny(id, "/?#%") {
		return "", false
	}
	return id, true
}

// parseScope reads a scope parameter: ScopeAll, ScopeServerPrefix + id
// (any number), offline_access (ignored: a refresh token is always issued).
func parseScope(scope string) (all bool, servers []string, _ *oauthError) {
	for _, s := range strings.Fields(scope) {
		switch id, isServer := strings.CutPrefix(s, ScopeServerPrefix); {
		case s == ScopeAll:
			all = true
		case s == scopeOffline:
		case isServer && id != "":
			servers = append(servers, id)
		default:
			return false, nil, fail("invalid_scope", "unknown scope "+s)
		}
	}
	return all, servers, nil
}

// errorRedirect is req's redirect URI carrying error e.
func (req *request) errorRedirect(e *oauthError) string {
	v := url.Values{"error": {e.Code}, "iss": {req.Issuer}}
	if e.Description != "" {
		v.Set("error_description", e.Description)
	}
	if req.State != "" {
		v.Set("state", req.State)
	}
	return withQuery(req.RedirectURI, v)
}

// withQuery adds v to the query of uri.
func withQuery(uri string, v url.Values) string {
	sep := "?"
	if strings.Contains(uri, "?") {
		sep = "&"
	}
	return uri + sep + v.Encode()
}

// addRequest keeps req in the store until it is answered or expires.
func (s *Server) addRequest(ctx context.Context, req *request) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encode the authorization request: %w", err)
	}
	return s.cfg.Store.PutAgentAuthorization(ctx, req.ID, body, s.cfg.Now(), req.Expires, maxPending)
}

// readRequest decodes request id as the store keeps it.
func readRequest(id string, a store.AgentAuthorization) (*request, error) {
	req := &request{}
	if err := json.Unmarshal(a.Body, req); err != nil {
		return nil, fmt.Errorf("decode the authorization request: %w", err)
	}
	req.ID, req.Expires = id, a.Expires
	return req, nil
}

// randomID returns 32 random bytes, base64url.
func randomID() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// errorPage writes a plain-text error for a person.
func errorPage(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write([]byte(msg + "\n"))
}
