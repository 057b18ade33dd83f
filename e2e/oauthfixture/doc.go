// Package oauthfixture is an OAuth world for tests: an authorization server
// and an MCP server it protects, both real HTTP servers on 127.0.0.1.
//
// The [AuthServer] publishes RFC 8414 (or OpenID Connect) metadata, shows a
// real consent page at /authorize with Approve and Deny buttons, issues
// codes only against PKCE S256, checks the resource parameter at both
// /authorize and /token, grants refresh tokens (rotating them), registers
// clients dynamically at /register, and optionally accepts client ID
// metadata documents. Its access-token lifetime, scopes_supported (with
// offline_access by default) and every other switch are in [AuthConfig]; it
// counts and records the requests it served so that tests can assert on
// them, and can revoke tokens to make a server refuse them.
//
// The [Resource] is a go-sdk MCP server behind the go-sdk's
// auth.RequireBearerToken, publishing its protected resource metadata
// (auth.ProtectedResourceMetadataHandler), over Streamable HTTP at /mcp and
// the legacy SSE transport at /sse. Tools can demand extra scopes, which it
// asks for with 403 insufficient_scope (step-up).
//
// A headless client approves the consent page by adding approve=1 to the
// authorization URL: /authorize then redirects at once. [Approve] and
// [Deny] do that and return the redirect to the client's callback without
// following it.
//
//	as := oauthfixture.StartAuthServer(t, oauthfixture.AuthConfig{})
//	rs := oauthfixture.StartResource(t, oauthfixture.ResourceConfig{AuthServer: as, Scopes: []string{"mcp:read"}})
//	// connect a client to rs.URL(); when it has an authorization URL:
//	callback, err := oauthfixture.Approve(ctx, authURL)
package oauthfixture
