package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// maxTokenBytes bounds a token endpoint's answer.
const maxTokenBytes = 1 << 20

// tokenAnswer is a token endpoint's successful answer (RFC 6749 5.1).
type tokenAnswer struct {
	AccessToken  string      `json:"access_token"`
	TokenType    string      `json:"token_type"`
	ExpiresIn    json.Number `json:"expires_in"`
	RefreshToken string      `json:"refresh_token"`
	Scope        string      `json:"scope"`
}

// tokenError is a token endpoint's refusal (RFC 6749 5.2), its description
// sanitized and stripped of anything the relay sent.
type tokenError struct {
	code, description string
}

func (e *tokenError) Error() string {
	return "the authorization server refused: " + describeRefusal(e.code, e.description)
}

// exchange trades an authorization code for a token (with the PKCE verifier
// and the resource) and returns the token to store.
func (m *Manager) exchange(ctx context.Context, st store.OAuthState, code string) (*store.OAuthToken, error) {
	id, err := m.clientAuth(ctx, st.User, st.Server, st.ClientSource, st.ClientID, st.AuthMethod)
	if err != nil {
		return nil, err
	}
	form := url.Values{
		"grant_type":    {grantAuthorizationCode},
		"code":          {code},
		"redirect_uri":  {st.RedirectURI},
		"code_verifier": {st.Verifier},
		"resource":      {st.Resource},
	}
	ans, err := m.requestToken(ctx, st.TokenEndpoint, form, id)
	if err != nil {
		return nil, err
	}
	tok := &store.OAuthToken{
		User: st.User, Server: st.Server, Issuer: st.Issuer, TokenEndpoint: st.TokenEndpoint, Resource: st.Resource,
		ClientID: st.ClientID, ClientSource: st.ClientSource, AuthMethod: id.method, Scopes: st.Scopes,
	}
	m.apply(tok, ans)
	return tok, nil
}

// refresh trades tok's refresh token for a new token (with the resource).
func (m *Manager) refresh(ctx context.Context, tok *store.OAuthToken) (*store.OAuthToken, error) {
	id, err := m.clientAuth(ctx, tok.User, tok.Server, tok.ClientSource, tok.ClientID, tok.AuthMethod)
	if err != nil {
		return nil, err
	}
	form := url.Values{
		"grant_type":    {grantRefreshToken},
		"refresh_token": {tok.RefreshToken},
		"resource":      {tok.Resource},
	}
	ans, err := m.requestToken(ctx, tok.TokenEndpoint, form, id)
	if err != nil {
		return nil, err
	}
	fresh := *tok
	m.apply(&fresh, ans)
	return &fresh, nil
}

// apply copies a token answer into tok. A refresh answer without a refresh
// token keeps the old one; an answer without scope keeps those asked for.
func (m *Manager) apply(tok *store.OAuthToken, ans *tokenAnswer) {
	now := m.now()
	tok.AccessToken, tok.TokenType = ans.AccessToken, ans.TokenType
	if ans.RefreshToken != "" {
		tok.RefreshToken = ans.RefreshToken
	}
	if scopes := strings.Fields(ans.Scope); len(scopes) > 0 {
		tok.Scopes = scopes
	}
	seconds, _ := strconv.ParseInt(ans.ExpiresIn.String(), 10, 64)
	tok.Expiry = expiresAt(now, seconds)
	tok.UpdatedAt = now
}

// clientAuth finds the credentials of the client a state or token belongs
// to. A registration that changed since fails: its token cannot be used.
func (m *Manager) clientAuth(ctx context.Context, user, server, source, clientID, method string) (*identity, error) {
	changed := &userError{msg: "the client registration changed since this authorization began; authorize again"}
	switch source {
	case store.ClientManual, store.ClientDynamic:
		c, ok, err := m.store.Client(ctx, user, server, source)
		if err != nil {
			return nil, &userError{msg: "could not read the client registration", err: err}
		}
		if !ok || c.ClientID != clientID {
			return nil, changed
		}
		return &identity{source: source, clientID: clientID, secret: c.ClientSecret, method: method}, nil
	case sourceConfig:
		for _, cr := range m.cfg.Clients {
			if cr.ClientID == clientID {
				return &identity{source: source, clientID: clientID, secret: cr.ClientSecret, method: method}, nil
			}
		}
		return nil, changed
	case sourceDocument:
		if clientID != m.cfg.ClientMetadataURL {
			return nil, changed
		}
		return &identity{source: source, clientID: clientID, method: methodNone}, nil
	}
	return nil, changed
}

// requestToken posts form to a token endpoint, authenticated as id.
func (m *Manager) requestToken(ctx context.Context, endpoint string, form url.Values, id *identity) (*tokenAnswer, error) {
	secrets := []string{form.Get("code"), form.Get("code_verifier"), form.Get("refresh_token"), id.secret}
	basic := id.method == methodBasic && id.secret != ""
	if !basic {
		form.Set("client_id", id.clientID)
	}
	if id.method == methodPost && id.secret != "" {
		form.Set("client_secret", id.secret)
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, &userError{msg: "the token endpoint is not a URL", err: err}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		// RFC 6749 2.3.1: both are form-encoded before Basic encoding.
		req.SetBasicAuth(url.QueryEscape(id.clientID), url.QueryEscape(id.secret))
	}
	resp, err := m.http.Do(req)
	if err != nil {
		return nil, &userError{msg: "token request: " + redact(err.Error(), secrets...), err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenBytes))
	if err != nil {
		return nil, &userError{msg: "token request: reading the answer failed", err: err}
	}
	if resp.StatusCode != http.StatusOK {
		var refusal struct {
			Code        string `json:"error"`
			Description string `json:"error_description"`
		}
		if json.Unmarshal(raw, &refusal) == nil && refusal.Code != "" {
			return nil, &tokenError{code: redact(refusal.Code, secrets...), description: redact(refusal.Description, secrets...)}
		}
		return nil, &userError{msg: fmt.Sprintf("the token endpoint answered HTTP %d", resp.StatusCode)}
	}
	var ans tokenAnswer
	if err := json.Unmarshal(raw, &ans); err != nil {
		return nil, &userError{msg: "the token endpoint's answer is not a token"}
	}
	switch {
	case ans.AccessToken == "":
		return nil, &userError{msg: "the token endpoint's answer has no access_token"}
	case ans.TokenType != "" && !strings.EqualFold(ans.TokenType, "bearer"):
		return nil, &userError{msg: fmt.Sprintf("the token endpoint issued a %q token; only bearer tokens are supported", describeRefusal(ans.TokenType, ""))}
	}
	return &ans, nil
}
