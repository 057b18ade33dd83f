package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/switchboard-mcp/switchboard/relay/metrics"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/relay/tracing"
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
// sanitized and stripped of anything the relay sent, or an error status
// without one (code empty).
type tokenError struct {
	status            int
	code, description string
}

func (e *tokenError) Error() string {
	if e.code == "" {
		return fmt.Sprintf("the token endpoint answered HTTP %d", e.status)
	}
	return "the authorization server refused: " + describeRefusal(e.code, e.description)
}

// errClientChanged: the client a token or state belongs to is no longer
// the one stored or configured.
var errClientChanged = &userError{msg: "the client registration changed since this authorization began; authorize again"}

// grantRefused reports whether err means the grant is dead (a person must
// authorize again): the authorization server refused it (invalid_grant,
// invalid_client, or any 400 or 401 answer), or its client is gone. Other
// failures (the server unreachable, timing out, failing, redirecting) are
// passing: the token is kept.
func grantRefused(err error) bool {
	if errors.Is(err, errClientChanged) {
		return true
	}
	var te *tokenError
	if !errors.As(err, &te) {
		return false
	}
	return te.code == "invalid_grant" || te.code == "invalid_client" ||
		te.status == http.StatusBadRequest || te.status == http.StatusUnauthorized
}

// exchange trades an authorization code for c's token (with the PKCE
// verifier and the resource) and returns the token to store.
func (m *Manager) exchange(ctx context.Context, c *Client, st store.OAuthState, code string) (*store.OAuthToken, error) {
	id, err := m.clientAuth(ctx, c, st.Issuer, st.ClientSource, st.ClientID, st.AuthMethod)
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

// refresh trades c's token tok's refresh token for a new token (with the
// resource).
func (m *Manager) refresh(ctx context.Context, c *Client, tok *store.OAuthToken) (*store.OAuthToken, error) {
	id, err := m.clientAuth(ctx, c, tok.Issuer, tok.ClientSource, tok.ClientID, tok.AuthMethod)
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

// clientAuth finds the credentials of the client a state or token of c
// belongs to, at the authorization server issuer: the stored registration
// of that source for that issuer, or the configured credentials with that
// client id that apply to issuer and c's server. A registration that
// changed since fails with errClientChanged: its token cannot be used.
func (m *Manager) clientAuth(ctx context.Context, c *Client, issuer, source, clientID, method string) (*identity, error) {
	switch source {
	case store.ClientManual, store.ClientDynamic:
		reg, ok, err := m.store.Client(ctx, c.user, c.server, source)
		if err != nil {
			return nil, &userError{msg: "could not read the client registration", err: err}
		}
		if !ok || reg.ClientID != clientID || reg.Issuer == "" || !issuersEqual(reg.Issuer, issuer) {
			return nil, errClientChanged
		}
		return &identity{source: source, clientID: clientID, secret: reg.ClientSecret, method: method, issuer: reg.Issuer}, nil
	case sourceConfig:
		for _, cr := range m.cfg.Clients {
			if cr.ClientID == clientID && cr.appliesTo(issuer, c.url) {
				return &identity{source: source, clientID: clientID, secret: cr.ClientSecret, method: method, issuer: issuer}, nil
			}
		}
	case sourceDocument:
		if clientID == m.cfg.ClientMetadataURL {
			return &identity{source: source, clientID: clientID, method: methodNone, issuer: issuer}, nil
		}
	}
	return nil, errClientChanged
}

// requestToken posts form to a token endpoint, authenticated as id, and
// returns the bearer token it answers. It follows no redirect, which would
// resend the form (code, verifier, refresh token, assertion, secret)
// elsewhere.
func (m *Manager) requestToken(ctx context.Context, endpoint string, form url.Values, id *identity) (_ *tokenAnswer, err error) {
	ctx, span := tracing.Start(ctx, "oauth token request", attribute.String("oauth.grant_type", form.Get("grant_type")))
	defer func() { metrics.TokenRequest(form.Get("grant_type"), err); tracing.End(span, err) }()
	var ans tokenAnswer
	if err := m.postToken(ctx, endpoint, form, id, &ans); err != nil {
		return nil, err
	}
	switch {
	case ans.AccessToken == "":
		return nil, &userError{msg: "the token endpoint's answer has no access_token"}
	case ans.TokenType != "" && !strings.EqualFold(ans.TokenType, "bearer"):
		return nil, &userError{msg: fmt.Sprintf("the token endpoint issued a %q token; only bearer tokens are supported", describeRefusal(ans.TokenType, ""))}
	}
	return &ans, nil
}

// postToken posts form to a token endpoint, authenticated as id, and
// decodes a successful answer into answer. No secret of the form or of id
// reaches its errors.
func (m *Manager) postToken(ctx context.Context, endpoint string, form url.Values, id *identity, answer any) error {
	secrets := []string{form.Get("code"), form.Get("code_verifier"), form.Get("refresh_token"), form.Get("assertion"), form.Get("subject_token"), id.secret}
	basic := id.method == methodBasic && id.secret != ""
	switch {
	case id.method == methodPrivateKeyJWT:
		if id.signer == nil {
			return &userError{msg: "private_key_jwt needs a private key"}
		}
		// RFC 7523 3: the assertion identifies the client; no client_id.
		assertion, err := id.signer.assertion(id.clientID, id.issuer, m.now())
		if err != nil {
			return &userError{msg: "could not sign the client assertion", err: err}
		}
		secrets = append(secrets, assertion)
		form.Set("client_assertion_type", assertionTypeJWT)
		form.Set("client_assertion", assertion)
	case !basic:
		form.Set("client_id", id.clientID)
	}
	if id.method == methodPost && id.secret != "" {
		form.Set("client_secret", id.secret)
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return &userError{msg: "the token endpoint is not a URL", err: err}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		// RFC 6749 2.3.1: both are form-encoded before Basic encoding.
		req.SetBasicAuth(url.QueryEscape(id.clientID), url.QueryEscape(id.secret))
	}
	resp, err := m.post.Do(req)
	if err != nil {
		return &userError{msg: "token request: " + redact(err.Error(), secrets...), err: err}
	}
	defer resp.Body.Close()
	if isRedirect(resp.StatusCode) {
		return &userError{msg: fmt.Sprintf("the token endpoint answered with a redirect (HTTP %d); the relay does not send credentials on to another address", resp.StatusCode)}
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenBytes))
	if err != nil {
		return &userError{msg: "token request: reading the answer failed", err: err}
	}
	if resp.StatusCode != http.StatusOK {
		var refusal struct {
			Code        string `json:"error"`
			Description string `json:"error_description"`
		}
		te := &tokenError{status: resp.StatusCode}
		if json.Unmarshal(raw, &refusal) == nil && refusal.Code != "" {
			te.code, te.description = redact(refusal.Code, secrets...), redact(refusal.Description, secrets...)
		}
		return te
	}
	if err := json.Unmarshal(raw, answer); err != nil {
		return &userError{msg: "the token endpoint's answer is not a token"}
	}
	return nil
}
