package oauth

// Discovery for servers of MCP authorization 2025-03-26, which publish no
// protected resource metadata: the server's origin is the authorization
// server.

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
)

// originMetadata finds the authorization server of a server that publishes
// no protected resource metadata, by the rules of MCP authorization
// 2025-03-26: the server's origin is the authorization base URL, the
// metadata is at its root well-known URL (RFC 8414, then OpenID Connect
// discovery), and a server without any uses the default endpoints
// (defaultMetadata).
//
// RFC 8414's rule that the issuer be the URL the metadata came from does
// not hold there (such a server may name the issuer <origin>/oauth).
// Instead the issuer and the endpoints must be on the server's origin, so
// that the server cannot pass for another authorization server, whose
// pre-registered credentials the relay would then send it.
func (m *Manager) originMetadata(ctx context.Context, serverURL string) (*oauthex.AuthServerMeta, error) {
	origin, err := originOf(serverURL)
	if err != nil {
		return nil, &userError{msg: "the server URL: " + err.Error(), err: err}
	}
	for _, path := range []string{asWellKnown, oidcWellKnown} {
		asm, err := getJSON[oauthex.AuthServerMeta](ctx, m.fetch, origin+path)
		var absent *absentError
		switch {
		case errors.As(err, &absent):
			continue
		case err != nil:
			return nil, &userError{msg: "authorization server metadata: " + err.Error(), err: err}
		}
		if err := checkOnOrigin(asm, origin); err != nil {
			return nil, err
		}
		return asm, nil
	}
	return defaultMetadata(origin), nil
}

// checkOnOrigin refuses metadata whose issuer, or any endpoint the relay
// calls, is not on origin.
func checkOnOrigin(asm *oauthex.AuthServerMeta, origin string) error {
	if !onOrigin(asm.Issuer, origin) {
		return &userError{msg: fmt.Sprintf("the authorization server metadata names the issuer %q, which is not on the server's origin %s", asm.Issuer, origin)}
	}
	for _, endpoint := range []struct{ name, url string }{
		{"authorization", asm.AuthorizationEndpoint},
		{"token", asm.TokenEndpoint},
		{"registration", asm.RegistrationEndpoint},
	} {
		if endpoint.url != "" && !onOrigin(endpoint.url, origin) {
			return &userError{msg: fmt.Sprintf("the authorization server metadata names the %s endpoint %q, which is not on the server's origin %s", endpoint.name, endpoint.url, origin)}
		}
	}
	return nil
}

// defaultMetadata is the authorization server of a server of MCP
// authorization 2025-03-26 that publishes no metadata at all: the default
// endpoints on its origin, which is the issuer. That revision requires
// PKCE of every client and leaves such a server no way to list its
// methods, so S256 is assumed here, and only here: metadata that exists
// must list it.
func defaultMetadata(origin string) *oauthex.AuthServerMeta {
	return &oauthex.AuthServerMeta{
		Issuer:                        origin,
		AuthorizationEndpoint:         origin + defaultAuthorizePath,
		TokenEndpoint:                 origin + defaultTokenPath,
		RegistrationEndpoint:          origin + defaultRegisterPath,
		CodeChallengeMethodsSupported: []string{pkceMethod},
	}
}

// originOf returns the origin of an http(s) URL, normalized
// (scheme://host[:port], lower case, without a default port).
func originOf(raw string) (string, error) {
	n, err := urlnorm.Normalize(raw)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(n)
	if err != nil {
		return "", fmt.Errorf("parse %q: %w", n, err)
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String(), nil
}

// onOrigin reports whether raw is an http(s) URL on origin.
func onOrigin(raw, origin string) bool {
	o, err := originOf(raw)
	return err == nil && o == origin
}
