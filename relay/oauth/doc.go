// Package oauth is the relay's MCP authorization client (MCP authorization
// 2025-11-25): discovery, client identity, the authorization code flow with
// PKCE through a browser popup, the callback, token storage and refresh.
//
// A [Manager] serves every user's servers. [Manager.For] returns the
// [Client] of one user's server, which its connection (relay/conn) uses as
// its authorizer: the connection asks it for the bearer token of each
// request and reports 401 and 403 answers; the client's status
// ([Client.Watch], a wire.AuthState) tells the dashboard whether a person
// must authorize, with which authorization server, scopes and client. It
// never holds a token or a secret.
//
// The flow:
//
//  1. A 401 records the challenge (resource_metadata, scope) and, unless a
//     refresh fixes it, requires a person. [Client.Discover] then finds the
//     protected resource metadata (from the challenge, else the path-based,
//     else the root well-known URL; its resource must be the server) and
//     the authorization server metadata (RFC 8414 and OpenID Connect
//     discovery in the specification's order, through the go-sdk's
//     auth.GetAuthServerMetadata), and refuses to go on without S256 in
//     code_challenge_methods_supported. A server without protected
//     resource metadata is one of the 2025-03-26 revision: its origin is
//     the authorization server, whose metadata is at the origin's
//     well-known URLs and may name an issuer other than the origin (as
//     <origin>/oauth), but the issuer and the endpoints must be on the
//     origin. With no metadata at all, the endpoints are that revision's
//     defaults, <origin>/authorize, /token and /register, with the origin
//     as issuer; since that revision requires PKCE of every client, S256
//     is assumed there, and only there.
//  2. [Manager.Authorize] picks the client identity: credentials a person
//     entered ([Manager.SetClient], secret write-only), then pre-registered
//     credentials from the configuration, then the relay's client ID
//     metadata document when the authorization server supports one
//     ([Manager.MetadataHandler]), then a dynamic registration, which is
//     stored and reused. Scopes come from the challenge, else the resource's
//     scopes_supported, else none, always with those granted already
//     (step-up keeps them), plus offline_access when the authorization
//     server lists it. It stores a state (random, bound to the user and
//     server, single use, valid ten minutes, kept hashed) with the PKCE
//     verifier (sealed) and returns the URL to open, checked http(s) with
//     shared/urlsafe. The resource parameter is sent with every
//     authorization and token request.
//  3. The authorization server sends the browser to [CallbackPath];
//     [Manager.CallbackHandler] hands the URL to [Manager.Callback], which
//     checks the state (known, unused, unexpired, issued for this very
//     origin and path, and RFC 9207's iss when present) before consuming
//     it, exchanges the code, stores the token sealed and wakes the
//     connection. An invalid callback changes nothing and shows a plain
//     error page.
//  4. Tokens are refreshed shortly before they expire and on a 401; a
//     refresh that fails drops the token and requires a person again. A 403
//     insufficient_scope asks for the union of the granted and challenged
//     scopes. Tokens outlive restarts: they are read from the store when the
//     connection starts.
//
// Headless clients (the conformance client) use the same calls without a
// browser: [Manager.Authorize] for the URL, and [Manager.Callback] with the
// URL the authorization server redirected to.
//
// Why not the go-sdk's auth.AuthorizationCodeHandler: it performs the whole
// flow inside one blocked HTTP request (its AuthorizationCodeFetcher must
// return the code), keeps tokens and registrations only in memory, and
// cannot be told about a token that exists from before a restart other
// than through a fixed token source. The relay's flow spans a popup that may
// take minutes, may be abandoned or replayed, must survive a restart
// between its start and its callback, and must persist registrations and
// tokens sealed. So this package builds the flow from the go-sdk's pieces
// that fit (oauthex metadata types and WWW-Authenticate parsing,
// auth.GetAuthServerMetadata) and golang.org/x/oauth2's PKCE helpers, and
// speaks to the token and registration endpoints itself, so that no
// response body (which may echo a secret) ever reaches an error message.
//
// Every request goes through the HTTP client of [Config], a netguard client
// in the relay.
package oauth
