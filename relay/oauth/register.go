package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Client identity sources besides the store's ClientManual and ClientDynamic.
const (
	sourceConfig   = "config"   // pre-registered in the relay's configuration
	sourceDocument = "document" // the relay's client ID metadata document
)

// Token endpoint authentication methods (RFC 7591).
const (
	methodBasic = "client_secret_basic"
	methodPost  = "client_secret_post"
	methodNone  = "none"
)

// Registration facts.
const (
	grantAuthorizationCode = "authorization_code"
	grantRefreshToken      = "refresh_token"
	responseTypeCode       = "code"
	// maxRegistrationBytes bounds a registration answer.
	maxRegistrationBytes = 1 << 20
)

// identity is how the relay identifies itself to an authorization server.
type identity struct {
	source   string // store.ClientManual, store.ClientDynamic, sourceConfig or sourceDocument
	clientID string
	secret   string
	method   string           // token endpoint authentication method
	issuer   string           // the authorization server it is for; empty when unknown
	signer   *assertionSigner // signs the client assertions of private_key_jwt
}

// identity returns the client identity for c at d's authorization server,
// in this order: credentials a person entered (which must have been
// entered for this authorization server: otherwise it fails rather than
// send their secret elsewhere), credentials from the configuration, the
// relay's client ID metadata document when the server supports it, a
// stored dynamic registration with this server and redirect URI, and
// (when register is set) a new dynamic registration, which is stored.
// Without register it returns nil when only a registration would do.
func (m *Manager) identity(ctx context.Context, c *Client, d *discovery, register bool) (*identity, error) {
	asm := d.asm
	manual, ok, err := m.store.Client(ctx, c.user, c.server, store.ClientManual)
	if err != nil {
		return nil, &userError{msg: "could not read the client credentials", err: err}
	}
	if ok {
		switch {
		case manual.Issuer == "":
			return nil, &userError{msg: "the client credentials entered before do not say which authorization server they are for: enter them again, or clear them"}
		case !issuersEqual(manual.Issuer, asm.Issuer):
			return nil, &userError{msg: fmt.Sprintf("the client credentials were entered for the authorization server %s, but the server now names %s: enter credentials for it, or clear them",
				manual.Issuer, asm.Issuer)}
		}
		return &identity{source: store.ClientManual, clientID: manual.ClientID, secret: manual.ClientSecret,
			method: chooseMethod(manual.ClientSecret, asm.TokenEndpointAuthMethodsSupported), issuer: manual.Issuer}, nil
	}
	for _, cr := range m.cfg.Clients {
		if cr.appliesTo(asm.Issuer, c.url) {
			return &identity{source: sourceConfig, clientID: cr.ClientID, secret: cr.ClientSecret,
				method: chooseMethod(cr.ClientSecret, asm.TokenEndpointAuthMethodsSupported), issuer: asm.Issuer}, nil
		}
	}
	if m.cfg.ClientMetadataURL != "" && asm.ClientIDMetadataDocumentSupported {
		return &identity{source: sourceDocument, clientID: m.cfg.ClientMetadataURL, method: methodNone, issuer: asm.Issuer}, nil
	}
	reg, ok, err := m.store.Client(ctx, c.user, c.server, store.ClientDynamic)
	if err != nil {
		return nil, &userError{msg: "could not read the client registration", err: err}
	}
	if ok && issuersEqual(reg.Issuer, asm.Issuer) && reg.RedirectURI == m.cfg.CallbackURL {
		return &identity{source: store.ClientDynamic, clientID: reg.ClientID, secret: reg.ClientSecret, method: reg.AuthMethod, issuer: reg.Issuer}, nil
	}
	if !register {
		return nil, nil
	}
	if asm.RegistrationEndpoint == "" {
		return nil, &userError{msg: "the authorization server " + asm.Issuer + " offers no dynamic client registration: enter a client ID registered with it"}
	}
	id, err := m.register(ctx, asm)
	if err != nil {
		return nil, err
	}
	err = m.store.PutClient(ctx, store.OAuthClient{User: c.user, Server: c.server, Source: store.ClientDynamic, Issuer: asm.Issuer,
		RedirectURI: m.cfg.CallbackURL, ClientID: id.clientID, ClientSecret: id.secret, AuthMethod: id.method})
	if err != nil {
		return nil, &userError{msg: "could not store the client registration", err: err}
	}
	m.log.Info("oauth client registered", "user", c.user, "server", c.server, "issuer", asm.Issuer, "client_id", id.clientID)
	return id, nil
}

// appliesTo reports whether configured credentials are for the
// authorization server issuer and the MCP server at serverURL.
func (cr Credentials) appliesTo(issuer, serverURL string) bool {
	return (cr.Issuer == "" || issuersEqual(cr.Issuer, issuer)) && (cr.Server == "" || cr.Server == serverURL)
}

// register performs dynamic client registration (RFC 7591). It follows no
// redirect, which would send the registration elsewhere.
func (m *Manager) register(ctx context.Context, asm *oauthex.AuthServerMeta) (*identity, error) {
	requested := registrationMethod(asm.TokenEndpointAuthMethodsSupported)
	meta := oauthex.ClientRegistrationMetadata{
		RedirectURIs:            []string{m.cfg.CallbackURL},
		TokenEndpointAuthMethod: requested,
		GrantTypes:              []string{grantAuthorizationCode, grantRefreshToken},
		ResponseTypes:           []string{responseTypeCode},
		ClientName:              m.cfg.ClientName,
		ApplicationType:         applicationType(m.cfg.CallbackURL),
	}
	body, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("encode registration: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, asm.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, &userError{msg: "the registration endpoint is not a URL", err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := m.post.Do(req)
	if err != nil {
		return nil, &userError{msg: "client registration: " + err.Error(), err: err}
	}
	defer resp.Body.Close()
	if isRedirect(resp.StatusCode) {
		return nil, &userError{msg: fmt.Sprintf("the registration endpoint answered with a redirect (HTTP %d); the relay registers only at the endpoint the metadata names", resp.StatusCode)}
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxRegistrationBytes))
	if err != nil {
		return nil, &userError{msg: "client registration: reading the answer failed", err: err}
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		var refusal struct {
			Code        string `json:"error"`
			Description string `json:"error_description"`
		}
		if json.Unmarshal(raw, &refusal) == nil && refusal.Code != "" {
			return nil, &userError{msg: "the authorization server refused the client registration: " + describeRefusal(refusal.Code, refusal.Description)}
		}
		return nil, &userError{msg: fmt.Sprintf("client registration failed with HTTP %d", resp.StatusCode)}
	}
	var reg oauthex.ClientRegistrationResponse
	if err := json.Unmarshal(raw, &reg); err != nil || reg.ClientID == "" {
		return nil, &userError{msg: "the authorization server's registration answer has no client_id"}
	}
	method := reg.TokenEndpointAuthMethod
	if method == "" {
		method = requested
	}
	if reg.ClientSecret == "" {
		method = methodNone
	}
	return &identity{source: store.ClientDynamic, clientID: reg.ClientID, secret: reg.ClientSecret, method: method, issuer: asm.Issuer}, nil
}

// chooseMethod picks how a client with secret authenticates at a token
// endpoint that supports the given methods (RFC 8414 defaults to basic).
func chooseMethod(secret string, supported []string) string {
	switch {
	case secret == "":
		return methodNone
	case len(supported) == 0 || slices.Contains(supported, methodBasic):
		return methodBasic
	case slices.Contains(supported, methodPost):
		return methodPost
	}
	return methodBasic
}

// registrationMethod picks the method to ask for when registering.
func registrationMethod(supported []string) string {
	switch {
	case len(supported) == 0 || slices.Contains(supported, methodBasic):
		return methodBasic
	case slices.Contains(supported, methodPost):
		return methodPost
	case slices.Contains(supported, methodNone):
		return methodNone
	}
	return methodBasic
}

// applicationType is "native" for a loopback redirect URI, "web" otherwise
// (OpenID Connect Dynamic Client Registration).
func applicationType(redirectURI string) string {
	u, err := url.Parse(redirectURI)
	if err == nil && urlnorm.IsLoopback(u.Hostname()) {
		return "native"
	}
	return "web"
}

// issuersEqual compares issuer identifiers, ignoring one trailing slash.
func issuersEqual(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// describeRefusal formats an OAuth error answer for a person.
func describeRefusal(code, description string) string {
	out := wire.Sanitize(code, maxErrorCodeRunes)
	if description != "" {
		out += " (" + wire.Sanitize(description, maxDescriptionRunes) + ")"
	}
	return out
}

// Caps on what an authorization server's error answer adds to a message.
const (
	maxErrorCodeRunes   = 64
	maxDescriptionRunes = 200
)
