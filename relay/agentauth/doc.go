// Package agentauth makes the relay the OAuth 2.1 authorization server of
// its own agent endpoint (/mcp and /mcp/s/<id>, [Config.Endpoint]), as the MCP authorization
// specification describes, so that an MCP client adds the relay by its URL
// alone and a person consents in the dashboard.
//
//   - [Server.Register] mounts the Protected Resource Metadata (RFC 9728) of
//     each endpoint, the Authorization Server Metadata (RFC 8414), dynamic
//     client registration (RFC 7591), the authorize, token and revocation
//     (RFC 7009) endpoints.
//   - A client is either a Client ID Metadata Document (its client_id an
//     https URL, fetched through netguard, size- and time-bounded, cached
//     as its Cache-Control says) or a dynamically registered client, whose
//     registration expires when no grant uses it.
//   - Only the authorization code grant with PKCE S256; redirect URIs match
//     exactly, but a loopback http redirect matches on any port (RFC 8252).
//     The resource parameter must name the endpoint, and the grant's tokens
//     work only there.
//   - The authorize endpoint checks the request and sends the browser to
//     the dashboard's consent page ([ConsentPath]); the person approves,
//     narrows the servers or denies through the dashboard's ops
//     ([Server.Consent], [Server.Decide]).
//   - Access tokens are opaque, short-lived and stored as hashes; refresh
//     tokens rotate on use, and a refresh token used twice revokes its grant.
//
// [Server.Authenticate] turns an access token into an [agentkeys.Grant];
// agentkeys.Keys calls it for tokens with the store.AccessTokenPrefix.
// [Server.HandleOps] registers the dashboard's ops on consent and grants.
//
// Nothing of a flow lives in one relay's memory: a pending authorization
// and then its code are kept in the store (only the hashes of the request
// id and the code), so that relays on one PostgreSQL store (replicas,
// relay/replica) serve it behind a balancer without affinity. /authorize
// names no user and may reach any relay; the consent is answered by ops on
// the person's owner; /token on any relay spends the code once, by one
// statement; a restart in between loses nothing.
package agentauth
