package agentauth

import (
	"errors"
	"net/http"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// maxFormBytes bounds a token or revocation request.
const maxFormBytes = 16 << 10

// tokenResponse is a successful token answer (RFC 6749 section 5.1).
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// serveToken answers the token endpoint: the authorization_code and
// refresh_token grants of public clients.
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, fail("invalid_request", "the request body is not a form"))
		return
	}
	var res tokenResponse
	var e *oauthError
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		res, e = s.exchangeCode(r)
	case "refresh_token":
		res, e = s.refresh(r)
	default:
		e = fail("unsupported_grant_type", "only authorization_code and refresh_token are supported")
	}
	if e != nil {
		status := http.StatusBadRequest
		if e.Code == "invalid_client" {
			status = http.StatusUnauthorized
		}
		if e.Code == "server_error" {
			status = http.StatusInternalServerError
		}
		writeError(w, status, e)
		return
	}
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, res)
}

// exchangeCode trades a code (with its PKCE verifier) for the grant's
// first tokens, creating the grant. The code may have been issued on
// another relay of the store: the store spends it once.
func (s *Server) exchangeCode(r *http.Request) (tokenResponse, *oauthError) {
	f := r.PostForm
	ctx := r.Context()
	a, err := s.cfg.Store.SpendAgentCode(ctx, f.Get("code"), s.cfg.Now())
	switch {
	case errors.Is(err, store.ErrCodeReused):
		if a.GrantID != "" { // else the first exchange, making it, is told and revokes it
			s.revoke(r, a.User, a.GrantID, "authorization code reused")
		}
		return tokenResponse{}, fail("invalid_grant", "the code was used already; its grant is revoked")
	case errors.Is(err, store.ErrNotFound):
		return tokenResponse{}, fail("invalid_grant", "the code is unknown or expired")
	case err != nil:
		s.cfg.Logger.Error("spend agent code", "err", err)
		return tokenResponse{}, fail("server_error", "the code could not be read")
	}
	req, err := readRequest("", a)
	if err == nil && req.Approved == nil {
		err = errors.New("the code's authorization has no approval")
	}
	if err != nil {
		s.cfg.Logger.Error("spend agent code", "err", err)
		return tokenResponse{}, fail("server_error", "the code could not be read")
	}
	switch {
	case f.Get("client_id") != req.Client.ID:
		return tokenResponse{}, fail("invalid_grant", "the code was issued to another client")
	case f.Get("redirect_uri") != req.RedirectURI:
		return tokenResponse{}, fail("invalid_grant", "the redirect_uri differs from the authorization request's")
	case !verifierMatches(f.Get("code_verifier"), req.Challenge):
		return tokenResponse{}, fail("invalid_grant", "the PKCE code verifier does not match")
	case f.Get("resource") != "" && f.Get("resource") != req.Resource:
		return tokenResponse{}, fail("invalid_target", "the resource differs from the authorization request's")
	}
	now := s.cfg.Now()
	if err := s.cfg.Store.DeleteExpiredAgentTokens(ctx, now); err != nil {
		s.cfg.Logger.Warn("forget expired agent tokens", "err", err)
	}
	access, at := store.NewAgentToken(store.TokenAccess, now.Add(s.cfg.AccessTTL))
	refresh, rt := store.NewAgentToken(store.TokenRefresh, now.Add(s.cfg.RefreshTTL))
	ap := req.Approved
	g, err := s.cfg.Store.CreateAgentGrant(ctx, store.AgentGrant{
		User: a.User, ClientID: req.Client.ID, ClientName: req.Client.Name, ClientHost: req.Client.Host,
		RedirectURI: req.RedirectURI, Resource: req.Resource, AllServers: ap.AllServers, Servers: ap.Servers, ToolMode: ap.ToolMode,
	}, at, rt)
	if errors.Is(err, store.ErrNotFound) {
		return tokenResponse{}, fail("invalid_grant", "an approved server was removed; authorize again")
	}
	if err != nil {
		s.cfg.Logger.Error("create agent grant", "err", err)
		return tokenResponse{}, fail("server_error", "the grant could not be stored")
	}
	// The code came twice at once: neither gets a grant. A grant the code
	// cannot name (its reuse could not revoke it) is not handed out either.
	reused, err := s.cfg.Store.AgentCodeGranted(ctx, f.Get("code"), g.ID)
	if err != nil {
		s.cfg.Logger.Error("record the grant of an agent code", "err", err)
		s.revoke(r, g.User, g.ID, "the grant of its code could not be recorded")
		return tokenResponse{}, fail("server_error", "the grant could not be stored")
	}
	if reused {
		s.revoke(r, g.User, g.ID, "authorization code reused")
		return tokenResponse{}, fail("invalid_grant", "the code was used twice; its grant is revoked")
	}
	s.cfg.Logger.Info("agent grant created", "user", g.User, "grant", g.ID, "client", g.ClientID)
	return s.tokens(access, refresh, g), nil
}

// refresh rotates a refresh token. One presented twice revokes its grant.
func (s *Server) refresh(r *http.Request) (tokenResponse, *oauthError) {
	f := r.PostForm
	old := store.HashAgentToken(f.Get("refresh_token"))
	g, t, err := s.cfg.Store.AgentGrantByToken(r.Context(), old)
	switch {
	case errors.Is(err, store.ErrNotFound), err == nil && t.Kind != store.TokenRefresh:
		return tokenResponse{}, fail("invalid_grant", "the refresh token is unknown, expired or revoked")
	case err != nil:
		s.cfg.Logger.Error("read refresh token", "err", err)
		return tokenResponse{}, fail("server_error", "the refresh token could not be read")
	case f.Get("client_id") != g.ClientID:
		return tokenResponse{}, fail("invalid_grant", "the refresh token was issued to another client")
	case f.Get("resource") != "" && f.Get("resource") != g.Resource:
		return tokenResponse{}, fail("invalid_target", "the grant is for another resource")
	}
	now := s.cfg.Now()
	access, at := store.NewAgentToken(store.TokenAccess, now.Add(s.cfg.AccessTTL))
	refresh, rt := store.NewAgentToken(store.TokenRefresh, now.Add(s.cfg.RefreshTTL))
	g, err = s.cfg.Store.RotateAgentRefresh(r.Context(), old, now, at, rt)
	switch {
	case errors.Is(err, store.ErrRefreshReused):
		s.cfg.Logger.Warn("agent refresh token reused; grant revoked", "grant", g.ID)
		s.closed(g.ID)
		return tokenResponse{}, fail("invalid_grant", "the refresh token was used already; the grant is revoked")
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrGrantRevoked):
		return tokenResponse{}, fail("invalid_grant", "the refresh token is unknown, expired or revoked")
	case err != nil:
		s.cfg.Logger.Error("rotate refresh token", "err", err)
		return tokenResponse{}, fail("server_error", "the refresh token could not be rotated")
	}
	return s.tokens(access, refresh, g), nil
}

// tokens is the answer carrying a grant's new tokens.
func (s *Server) tokens(access, refresh string, g store.AgentGrant) tokenResponse {
	return tokenResponse{
		AccessToken: access, TokenType: "Bearer", ExpiresIn: int64(s.cfg.AccessTTL.Seconds()),
		RefreshToken: refresh, Scope: grantScope(g),
	}
}

// grantScope is the scope a grant allows.
func grantScope(g store.AgentGrant) string {
	if g.AllServers {
		return ScopeAll
	}
	scopes := make([]string, len(g.Servers))
	for i, id := range g.Servers {
		scopes[i] = ScopeServerPrefix + id
	}
	return strings.Join(scopes, " ")
}

// closed tells the gateway that grant id no longer works.
func (s *Server) closed(id string) {
	if s.cfg.Revoked != nil {
		s.cfg.Revoked(KeyID(id))
	}
}
