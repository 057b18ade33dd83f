// Package oauth is the relay's MCP authorization client (MCP authorization
// 2025-11-25): discovery, client identity, the authorization code flow with
// PKCE through a browser popup, the callback, token storage and refresh.
//
// A [Manager] serves every user's servers. [Manager.For] returns the
// [Client] of one user's server, which its connection (relay/conn) uses as
// its authorizer: the connection asks it for the bearer token of each
// request and reports 401 and 403 answers. The client's status
// ([Client.Watch], a wire.AuthState) tells the dashboard whether a person
// must authorize, with which authorization server, scopes and client; the
// status never holds a token or a secret.
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
//  2. [Manager.AuthorizeInBrowser] picks the client identity: credentials
//     a person entered ([Manager.SetClient], secret write-only, bound to the
//     authorization server of the time and never sent to another one), then
//     pre-registered credentials from the configuration (matched by issuer
//     or server), then the relay's client ID metadata document when the
//     authorization server supports one ([Manager.MetadataHandler]), then a
//     dynamic registration, which is stored and reused. Scopes come from the
//     challenge, else the resource's scopes_supported, else none, always
//     with those granted already (step-up keeps them), plus offline_access
//     when the authorization server lists it. It stores a state (random,
//     bound to the user and server, single use, valid ten minutes, kept
//     hashed) with the PKCE verifier (sealed), and returns the relay's start
//     page for it ([StartPath]). The resource parameter is sent with every
//     authorization and token request.
//  3. The dashboard opens the start page in a popup. [Manager.StartHandler]
//     accepts only the browser of the user who started the authorization
//     (the relay's session cookie, which a browser sends only on navigations
//     the relay's own pages start), sets a cookie binding that browser to
//     the state, and redirects to the authorization server (its URL checked
//     http(s) with shared/urlsafe).
//  4. The authorization server sends the browser to [CallbackPath].
//     [Manager.CallbackHandler] requires the binding cookie, so that a link
//     to someone else's authorization, approved by another user, authorizes
//     nothing, then hands the URL to [Manager.Callback], which checks the
//     state (known, unused, unexpired, issued for this very origin and path,
//     and RFC 9207's iss when present) before consuming it, exchanges the
//     code (to the end, even if the popup closes), stores the token sealed
//     and wakes the connection. An invalid callback changes nothing and
//     shows a plain error page.
//  5. Tokens are refreshed shortly before they expire and on a 401. A
//     refresh the authorization server refuses (invalid_grant,
//     invalid_client, a 400 or 401) drops the token and requires a person
//     again; one that fails for a passing reason (unreachable, timing out,
//     5xx) keeps the token, uses it while it is valid, and is tried again
//     later, while the connection fails and retries. A 403
//     insufficient_scope asks for the union of the granted and challenged
//     scopes. Tokens outlive restarts: they are read from the store when the
//     connection starts. Removing a server ([Manager.Forget]) deletes all of
//     it, and nothing obtained afterwards (a late refresh or callback) is
//     stored.
//
// Machine access: a server given machine credentials (store.OAuthMachine,
// set by the operator with "switchboard servers machine-access") never asks
// a person. On its 401 the client discovers the authorization server as
// above (without the authorization code flow's PKCE requirement), checks
// that it offers the grant and the client authentication method (and, for
// private_key_jwt, the signing algorithm), and obtains a token: the client
// credentials grant, authenticated by client_secret_basic,
// client_secret_post or a client assertion signed with the configured key
// (RFC 7523: iss and sub the client id, aud the issuer, two minutes, a
// fresh jti); or cross-app access ([CrossApp]): the user's ID token
// exchanged at the enterprise identity provider (RFC 8693) for an ID-JAG
// with the authorization server's issuer as audience and the server as
// resource, presented in the JWT bearer grant. Such tokens are obtained
// anew, not refreshed, shortly before they expire, on a 401 and on a 403
// insufficient_scope (with the scopes asked for). A grant that fails is
// shown in the status (Required stays false) and held off for a few
// seconds; the connection retries. [Manager.Recheck] lets a server that
// waits for a person use machine credentials given meanwhile.
//
// Headless clients (the conformance client) use the same calls without a
// browser: [Manager.Authorize] for the authorization server's URL, and
// [Manager.Callback] with the URL the authorization server redirected to.
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
// in the relay: token requests and registrations, which carry secrets,
// follow no redirect, and metadata requests follow none from https to
// http.
package oauth
