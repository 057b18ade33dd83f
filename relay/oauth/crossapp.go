package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Token exchange (RFC 8693) for an Identity Assertion JWT Authorization
// Grant (ID-JAG), as the enterprise-managed authorization extension of MCP
// profiles it.
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
)

// CrossApp is the enterprise identity provider of cross-app access: the
// relay trades a user's ID token there (token exchange) for an identity
// assertion grant (ID-JAG) addressed to a server's authorization server,
// and presents that grant there (the JWT bearer grant) with its machine
// credentials for that server.
type CrossApp struct {
	// TokenEndpoint is the identity provider's token endpoint.
	TokenEndpoint string
	// ClientID and ClientSecret are the relay's client at the identity
	// provider (ClientSecret empty for a public client).
	ClientID, ClientSecret string
	// IDToken returns the ID token the identity provider issued to user at
	// single sign-on.
	IDToken func(ctx context.Context, user string) (string, error)
}

// check reports what is missing from ca.
func (ca *CrossApp) check() error {
	u, err := url.Parse(ca.TokenEndpoint)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Errorf("cross-app access: the identity provider's token endpoint %q is not an absolute http(s) URL", ca.TokenEndpoint)
	case ca.ClientID == "":
		return errors.New("cross-app access: the relay's client id at the identity provider is required")
	case ca.IDToken == nil:
		return errors.New("cross-app access: a source of users' ID tokens is required")
	}
	return nil
}

// exchangeAnswer is a token exchange's successful answer (RFC 8693 2.2.1).
type exchangeAnswer struct {
	AccessToken     string `json:"access_token"`
	IssuedTokenType string `json:"issued_token_type"`
}

// identityAssertion obtains an ID-JAG for user from the identity provider:
// for the authorization server audience (its issuer identifier), the
// resource and the scopes.
func (m *Manager) identityAssertion(ctx context.Context, user, audience, resource string, scopes []string) (string, error) {
	ca := m.cfg.CrossApp
	if ca == nil {
		return "", &userError{msg: "cross-app access is not configured on this relay (no identity provider)"}
	}
	idToken, err := ca.IDToken(ctx, user)
	if err != nil || idToken == "" {
		return "", &userError{msg: "no ID token of the user from the identity provider; sign in again", err: err}
	}
	form := url.Values{
		"grant_type":           {grantTokenExchange},
		"requested_token_type": {tokenTypeIDJAG},
		"audience":             {audience},
		"resource":             {resource},
		"subject_token":        {idToken},
		"subject_token_type":   {tokenTypeIDToken},
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	id := &identity{clientID: ca.ClientID, secret: ca.ClientSecret, method: methodNone}
	if ca.ClientSecret != "" {
		id.method = methodBasic
	}
	var ans exchangeAnswer
	if err := m.postToken(ctx, ca.TokenEndpoint, form, id, &ans); err != nil {
		return "", &userError{msg: "the identity provider: " + err.Error(), err: err}
	}
	if ans.AccessToken == "" || ans.IssuedTokenType != tokenTypeIDJAG {
		return "", &userError{msg: "the identity provider's answer holds no identity assertion grant (ID-JAG)"}
	}
	return ans.AccessToken, nil
}
