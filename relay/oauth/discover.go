package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
	"github.com/switchboard-mcp/switchboard/shared/urlsafe"
)

// Discovery facts.
const (
	prmWellKnown = "/.well-known/oauth-protected-resource"
	// asWellKnown and oidcWellKnown are, at the root of its origin, where a
	// server without protected resource metadata publishes its
	// authorization server metadata (RFC 8414, OpenID Connect discovery).
	asWellKnown   = "/.well-known/oauth-authorization-server"
	oidcWellKnown = "/.well-known/openid-configuration"
	// The default endpoints of MCP authorization 2025-03-26 on the origin
	// of a server that publishes no metadata at all.
	defaultAuthorizePath = "/authorize"
	defaultTokenPath     = "/token"
	defaultRegisterPath  = "/register"
	// maxMetadataBytes bounds a metadata document.
	maxMetadataBytes = 1 << 20
	// pkceMethod is the only PKCE method the relay uses.
	pkceMethod = "S256"
	// scopeOfflineAccess asks for a refresh token (SEP-2207).
	scopeOfflineAccess = "offline_access"
)

// discovery is what the relay learned about a server's authorization.
type discovery struct {
	resource        string   // the protected resource, sent as the resource parameter
	scopesSupported []string // the resource's scopes_supported
	asm             *oauthex.AuthServerMeta
	metadataURL     string // the challenge's resource_metadata it followed
	at              time.Time
}

// issuer returns the authorization server's issuer.
func (d *discovery) issuer() string { return d.asm.Issuer }

// freshFor reports whether d may be reused for a challenge naming
// metadataURL at now.
func (d *discovery) freshFor(metadataURL string, now time.Time) bool {
	return d != nil && d.metadataURL == metadataURL && now.Sub(d.at) < discoveryTTL
}

// discover finds the authorization server of the MCP server at serverURL,
// as the MCP authorization specification (2025-11-25) orders it:
//
//  1. protected resource metadata (RFC 9728) from the challenge's
//     resource_metadata, else at the path-based well-known URL, else at the
//     root one. Its resource must be the server or a prefix of it on the
//     same origin; metadata naming another resource is refused, not skipped.
//  2. authorization server metadata at the RFC 8414 and OpenID Connect
//     discovery URLs, in the specification's order (the go-sdk's
//     auth.GetAuthServerMetadata). A server without protected resource
//     metadata is one of the 2025-03-26 revision instead (originMetadata).
//  3. the metadata must list S256 in code_challenge_methods_supported, and
//     its authorization endpoint must be http(s) (http only on loopback).
func (m *Manager) discover(ctx context.Context, serverURL, metadataURL string) (*discovery, error) {
	d, err := m.discoverServers(ctx, serverURL, metadataURL)
	if err != nil {
		return nil, err
	}
	asm := d.asm
	switch {
	case !slices.Contains(asm.CodeChallengeMethodsSupported, pkceMethod):
		return nil, &userError{msg: "the authorization server " + asm.Issuer + " does not support PKCE with S256; the relay refuses to authorize without it"}
	case asm.AuthorizationEndpoint == "":
		return nil, &userError{msg: "the authorization server " + asm.Issuer + " names no authorization or token endpoint"}
	}
	if _, err := urlsafe.CheckOpenable(asm.AuthorizationEndpoint); err != nil {
		return nil, &userError{msg: "the authorization endpoint cannot be opened: " + err.Error()}
	}
	return d, nil
}

// discoverServers is the part of discover that every grant needs: the
// protected resource and its authorization server's metadata, with a token
// endpoint. The checks of the authorization code flow (PKCE, an
// authorization endpoint) are discover's.
func (m *Manager) discoverServers(ctx context.Context, serverURL, metadataURL string) (*discovery, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	prm, err := m.resourceMetadata(ctx, serverURL, metadataURL)
	if err != nil {
		return nil, err
	}
	d := &discovery{metadataURL: metadataURL, at: m.now()}
	var asm *oauthex.AuthServerMeta
	if prm == nil {
		d.resource = serverURL
		asm, err = m.originMetadata(ctx, serverURL)
	} else {
		d.resource, d.scopesSupported = prm.Resource, prm.ScopesSupported
		asm, err = m.authServerMetadata(ctx, prm.AuthorizationServers[0])
	}
	switch {
	case err != nil:
		return nil, err
	case asm.TokenEndpoint == "":
		return nil, &userError{msg: "the authorization server " + asm.Issuer + " names no authorization or token endpoint"}
	}
	d.asm = asm
	return d, nil
}

// authServerMetadata fetches the metadata of the authorization server that
// protected resource metadata names: its issuer must be asURL (RFC 8414).
func (m *Manager) authServerMetadata(ctx context.Context, asURL string) (*oauthex.AuthServerMeta, error) {
	asm, err := auth.GetAuthServerMetadata(ctx, asURL, m.fetch)
	switch {
	case err != nil:
		return nil, &userError{msg: "authorization server metadata of " + asURL + ": " + err.Error(), err: err}
	case asm == nil:
		return nil, &userError{msg: "no authorization server metadata found for " + asURL}
	}
	return asm, nil
}

// resourceMetadata fetches the protected resource metadata of serverURL, or
// returns nil when the server publishes none.
func (m *Manager) resourceMetadata(ctx context.Context, serverURL, fromChallenge string) (*oauthex.ProtectedResourceMetadata, error) {
	for _, candidate := range resourceMetadataURLs(serverURL, fromChallenge) {
		prm, err := getJSON[oauthex.ProtectedResourceMetadata](ctx, m.fetch, candidate)
		var absent *absentError
		switch {
		case errors.As(err, &absent):
			continue
		case err != nil:
			return nil, &userError{msg: "protected resource metadata: " + err.Error(), err: err}
		}
		if !covers(prm.Resource, serverURL) {
			return nil, &userError{msg: fmt.Sprintf("the server's metadata names the resource %q, which is not this server (%s)", prm.Resource, serverURL)}
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, &userError{msg: "the server's metadata names no authorization server"}
		}
		if _, err := urlsafe.CheckOpenable(prm.AuthorizationServers[0]); err != nil {
			return nil, &userError{msg: "the server's authorization server: " + err.Error()}
		}
		return prm, nil
	}
	return nil, nil
}

// resourceMetadataURLs lists where protected resource metadata may be, in
// order: the challenge's URL (when http(s), http only on loopback), the
// path-based well-known URL, the root one.
func resourceMetadataURLs(serverURL, fromChallenge string) []string {
	var urls []string
	if fromChallenge != "" {
		if _, err := urlsafe.CheckOpenable(fromChallenge); err == nil {
			urls = append(urls, fromChallenge)
		}
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return urls
	}
	root := url.URL{Scheme: u.Scheme, Host: u.Host, Path: prmWellKnown}
	if p := strings.Trim(u.Path, "/"); p != "" {
		pathBased := root
		pathBased.Path += "/" + p
		urls = append(urls, pathBased.String())
	}
	return append(urls, root.String())
}

// covers reports whether the protected resource names the server at
// serverURL: the same origin, and a path equal to the server's or a
// segment prefix of it.
func covers(resource, serverURL string) bool {
	r, err1 := urlnorm.Normalize(resource)
	s, err2 := urlnorm.Normalize(serverURL)
	if err1 != nil || err2 != nil {
		return false
	}
	ru, _ := url.Parse(r)
	su, _ := url.Parse(s)
	if ru.Scheme != su.Scheme || ru.Host != su.Host || ru.RawQuery != "" {
		return false
	}
	return ru.Path == "" || ru.Path == su.Path || strings.HasPrefix(su.Path, ru.Path+"/")
}

// absentError is a metadata request answered with a client error or with
// something that is not JSON (a web page served for every path): there is
// no document there.
type absentError struct{ why string }

func (e *absentError) Error() string { return e.why }

// getJSON fetches a JSON document of at most maxMetadataBytes.
func getJSON[T any](ctx context.Context, hc *http.Client, u string) (*T, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); {
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return nil, &absentError{why: fmt.Sprintf("%s: HTTP %d", u, resp.StatusCode)}
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%s: HTTP %d", u, resp.StatusCode)
	case mt != "application/json":
		return nil, &absentError{why: fmt.Sprintf("%s: content type %q, not JSON", u, mt)}
	}
	var v T
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadataBytes)).Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %w", u, err)
	}
	return &v, nil
}
