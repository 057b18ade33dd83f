// Package conn holds one MCP connection: a go-sdk client session over the
// Streamable HTTP transport (or the legacy HTTP+SSE one), its lifecycle,
// discovery of its lists, health checks and reconnects.
//
// [Start] connects in the background and reports the server's whole state
// ([wire.Server]) through an emit callback every time it changes:
// connecting → connected → discovering → ready, or failed with a short,
// sanitized error, after which it reconnects with exponential backoff.
// [Conn.CallTool], [Conn.GetPrompt], [Conn.ReadResource] and [Conn.Complete]
// run operations on the live session and fail with an [*Error].
//
// The state carries the capabilities the server declared, and the resource
// subscriptions the connection keeps ([Conn.Subscribe], [Config.Subscriptions]):
// each new session subscribes to them again after discovery (a failure is
// recorded in the subscription, not the session's), and a
// notifications/resources/updated marks the subscription with the time.
//
// With an [Authorizer] (relay/oauth) every request to the server's origin,
// on either transport, carries its bearer token, through an
// [http.RoundTripper] that also handles refusals: a 401 is repeated once
// after a refresh, else the server moves to authenticating (with its
// [wire.AuthState]) and waits, without backoff, until a person authorizes
// (then it reconnects at once) or Retry. A 403 insufficient_scope of an op
// waits for a step-up authorization and repeats the request; one of the
// connection's own requests moves it to authenticating. At most three
// authorizations serve one operation (an op, or connecting until ready);
// then the op fails, or the connection fails until Retry.
//
// Both protocol eras are spoken: the stateless 2026-07-28 protocol
// (server/discover, list changes through subscriptions/listen) and the
// initialize handshake of earlier versions, which the go-sdk falls back to.
//
// A ready connection is watched three ways: the session ending
// (ClientSession.Wait), a periodic health probe (ping before 2026-07-28,
// server/discover from then on, where ping no longer exists), and the end of
// the subscriptions/listen stream, which an [http.RoundTripper] notices.
//
// Everything a server sends is untrusted. Conversion to wire types caps what
// a hostile server can make the relay hold or show:
//   - at most 5000 items and 8 MiB of converted JSON per list, at most 1000
//     pages, duplicates dropped;
//   - items whose key (tool or prompt name, argument name, resource URI, URI
//     template) is empty, too long or holds control or format characters are
//     dropped rather than renamed, since a renamed item could not be used;
//   - one-line text (titles, names shown to people, versions, MIME types) goes
//     through [wire.Sanitize]; descriptions and instructions keep their line
//     breaks but lose other control and format characters and are cut at
//     8192 runes;
//   - input and output schemas over 64 KiB and annotations over 4 KiB are
//     left out;
//   - icons (of tools, prompts, resources, templates) are kept only as
//     data: URIs of PNG, JPEG, GIF or WebP checked by their bytes, at most
//     [wire.MaxIconBytes] each and 2 MiB a list; https icons are fetched by
//     the relay and inlined (icons.go);
//   - one HTTP response body or SSE event is read up to 16 MiB (or twice
//     [Config.MaxResultBytes] when that is more), and an op result whose
//     converted JSON exceeds Config.MaxResultBytes fails with
//     [TooLarge].
//
// A failed operation says its cause once ([Code], callerrors.go): not connected
// (naming the server's state), connection lost, the relay's per-call
// timeout ([Config.CallTimeout]), cancelled, the server's JSON-RPC error
// (with its code), too large. A request or response stream of a session
// that breaks makes the connection probe the server at once, so a server
// that dies mid-call fails the call and the connection within a probe's
// time, not at the next health check or after the go-sdk gave up resuming
// the stream.
//
// A tool result's structuredContent is checked against the tool's
// outputSchema ([wire.CallToolResult.OutputCheck], outputcheck.go); the
// pass-through operations of the gateway leave results as the server sent
// them.
//
// The go-sdk's SEP-2549 list and read caches are turned off (every result's
// ttlMs is zeroed by a sending middleware): the connection lists only on
// connect and after a list_changed notification, and then it must see the
// server's current lists, not a cached page.
//
// With an [Asker], a connection advertises the kinds of asks of
// [Config.Modes]: elicitation (elicit.go) and sampling with tools
// (sampling.go), on both protocol eras: 2025-11-25 requests, and 2026-07-28
// input requests, which the go-sdk fulfils through the same handlers.
//
// The go-sdk hands elicitation and tool schemas over as Go maps, which lose
// the order of a form's fields. A RoundTripper (or, for stdio, the
// connection) reads along the messages the go-sdk reads and records each
// requested schema and each listed tool's schemas in the server's key order,
// so that a form shows its fields in that order (relay/readalong).
//
// Every server is offered the person's roots, with list changes
// ([Conn.SetRoots] sends notifications/roots/list_changed); one the person
// excluded is given an empty list. A server that declares logging is asked
// for Config.LogLevel and up ([Conn.SetLogLevel]): by logging/setLevel on
// each new session before 2026-07-28, in every request's _meta from then on.
// Log messages and the server's notifications (list changes, resource
// updates, progress, cancellations, finished URL elicitations) go to the
// [Journal], capped, and never to the relay's log above debug (roots.go,
// logging.go, activity.go).
//
// Tasks (MCP 2025-11-25, experimental) are not modelled by the go-sdk: it
// drops the tasks capability, a tool's execution.taskSupport and the task
// of a CreateTaskResult. The same read-along keeps them (relay/readalong), and
// the task methods go through CallCustomMethod (tasks.go): a tool that
// requires or offers tasks, on a server that declared task-augmented
// tools/call, runs as a task ([Conn.CallToolTask]), polled with tasks/get at
// the server's pollInterval and woken by notifications/tasks/status, its
// result fetched with tasks/result (also as soon as it needs input, so that
// the server's questions reach the person). A tool that requires tasks is
// never called plainly; on a server without task support it is marked
// [wire.Tool.Uncallable]. The relay advertises no client tasks capability:
// it does not run the server's requests as tasks.
package conn
