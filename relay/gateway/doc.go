// Package gateway is the relay's agent endpoint: an MCP server (the go-sdk's
// Streamable HTTP handler: stateful sessions for 2025-11-25 and before,
// stateless requests for 2026-07-28, each agent given its own era's shapes,
// eras.go) through which a
// person's agents use that person's servers, on the same connections the
// dashboard uses. An agent's call runs through the one call path of the
// server's owner (relay/session), as a person's does (calls.go): the owner
// checks the grant, decides on a task, records the call in the activity
// and attributes the server's questions to it; what agents are shown of a
// server are its owner's lists as the server sent them.
//
//   - [Path] (/mcp) aggregates the tools, prompts, resources and resource
//     templates of the ready servers the agent's key may use;
//   - [ServerPath]<id> (/mcp/s/<id>) exposes one server alone, its names
//     and URIs unchanged.
//
// Every request carries an agent key or an OAuth access token issued by
// relay/agentauth (Authorization: Bearer); a request without one gets 401
// with WWW-Authenticate naming the endpoint's Protected Resource Metadata
// ([Config.Protected]), and a token works only on the endpoint it is bound
// to (agentkeys.Grant.Resource). An [agentkeys.Authenticator] turns it
// into an [agentkeys.Grant], checked on every request, list and call, so
// that a narrowed or revoked key takes effect within a live session, and
// [Gateway.CloseKey] ends a key's sessions at once (relay/agentkeys caches
// a key read from the store for a second). Calls in flight end with their
// key: revoking it (agentkeys.Keys.Closed, which tells both the gateway and
// the [API]) or its expiry cancels them, and the server hears
// notifications/cancelled, and tasks/cancel for a call run as a task. A browser
// request (one with an Origin header) must come from an allowed origin;
// the Host check is the router's. Each key (and each OAuth grant) has one
// token bucket ([Limits]), shared with the tool API. A key reaches only the
// servers of its grant's user.
//
// # Names
//
// On the aggregate endpoint a tool or prompt of server S named N is
// "S__N", S the server's id (12 hex digits, or an id a person chose, which
// may itself hold "__"). A name that is not made of
// [A-Za-z0-9_.-] or that would make the whole longer than 128 characters
// is rewritten "S__<N with other characters as _, cut>_<first 8 hex digits
// of SHA-256(N)>". Verbatim names are placed first; a rewritten name that
// collides with one already taken gets "-2", "-3", … (cut to fit) in the
// order of the server's names sorted bytewise. The mapping depends only on
// the server id and its set of names, so it is stable across listings, and
// both /mcp and the tool API reverse it through the same name table
// ([exposedNames]), never by cutting the name. Grants name tools this way
// on both endpoints.
//
// A resource URI (or URI template) U of server S is
// "switchboard-S+U": still a URI with a scheme, a template still a
// template, and reversed by cutting the prefix. Contents read back carry
// mapped URIs too.
//
// Descriptions, input and output schemas, annotations, icons, titles and
// _meta pass through unchanged, but for a tool's App (MCP Apps, the
// io.modelcontextprotocol/ui extension, which both endpoints declare): its
// _meta.ui is shown as the relay read it (relay/mcpwire), its resourceUri
// named as the endpoint names resources, and the deprecated
// _meta["ui/resourceUri"] goes. A tool for its App only (visibility
// without "model") is neither listed nor callable, here nor in the tool
// API. A ui:// view of a server on the endpoint is read through it even
// when the server does not list it. An item the go-sdk cannot serve (a
// tool whose input schema is not an object, an unparsable URI) is left out
// and logged.
//
// # Human steps
//
// A question a server asks during an agent's call (an elicitation form or
// URL, a -32042 URL requirement) goes to the person's dashboards, labelled
// with the agent and the tool (relay/conn attributes it to the call, the
// call's owner labels it); cancelling the call withdraws it. The agent gets only
// the call's final result; while it waits it gets progress notifications
// ("waiting for a person in Switchboard") if it sent a progress token, and
// a tool error if nobody answered in time. A sampling request is such a
// question too (or the configured model's, in model mode); a key with
// ForwardSampling lets the person hand it, with a click on its card, to the
// agent's own client when that client declared sampling (forward.go).
//
// Progress, cancellation, completions, pings (on a server's endpoint),
// resource subscriptions and the servers' log messages pass through; see
// notify.go for how logs and levels are shared. Each key's view of an
// endpoint is one go-sdk server whose lists follow the servers (view.go);
// it lives until the key is closed or expires or the relay stops, and a
// server's endpoint also until its server is removed or leaves the key's
// scope: its sessions close, and a new request there gets 404. A key's
// live sessions over all its views are capped (sessioncap.go): a new one
// closes the key's idlest, or is refused with 429 when all are busy.
package gateway
