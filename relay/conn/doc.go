// Package conn holds one MCP connection: a go-sdk client session over the
// Streamable HTTP transport (or the legacy HTTP+SSE one, or a process's
// standard input and output), its lifecycle, discovery of its lists, health
// checks and reconnects. It speaks MCP: what it reports and what its
// operations take and return are the go-sdk's types; the conversion to what
// a dashboard is shown happens at one edge, above it (relay/mcpwire, used by
// relay/session).
//
// [Start] connects in the background and reports the connection's whole
// [State] every time it changes: connecting → connected → discovering →
// ready, or failed with a short, sanitized error, after which it reconnects
// with exponential backoff. The state carries the server's initialize
// result and its lists ([Lists], replaced on each discovery, never
// modified), as the go-sdk decoded them, with what the go-sdk drops and the
// connection reads along (a tool's task support, the tasks capability).
//
// Operations run on the live session, one face for every caller (a
// person's dashboard, an agent): [Conn.CallTool], [Conn.CallToolTask],
// [Conn.GetPrompt], [Conn.ReadResource], [Conn.Complete], [Conn.Ping] and
// the lists as the server sends them now ([Conn.ListTools], ...). They fail
// with an [*Error], whose [Code] says the cause once (callerrors.go): not
// ready (naming the server's state), not found, bad request, connection
// lost, the relay's per-call timeout ([Config.CallTimeout]), cancelled, too
// large, the server's JSON-RPC error (kept in [Error.RPC]), an answer the
// relay cannot use. Its message is sanitized and masks the connection's
// secrets (scrub.go). A request or response stream of a session that breaks
// makes the connection probe the server at once, so a server that dies
// mid-call fails the call and the connection within a probe's time.
//
// The connection keeps the resource subscriptions of the person
// ([Conn.Subscribe], [Config.Subscriptions]) and of agents
// ([Conn.HoldSubscription]), made again on each new session; a
// notifications/resources/updated marks the person's subscription with the
// time and reaches [Conn.OnResourceUpdated]'s listeners.
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
// A ready connection is watched three ways: the session ending
// (ClientSession.Wait), a periodic health probe (ping before 2026-07-28,
// server/discover from then on), and the end of the subscriptions/listen
// stream, which an [http.RoundTripper] notices.
//
// Everything a server sends is untrusted. The connection caps what a server
// can make the relay hold: at most 1000 pages, 5000 items and 8 MiB of JSON
// per list, null items and repeated keys dropped (discover.go); one HTTP
// response body or SSE event read up to 16 MiB (or twice
// [Config.MaxResultBytes] when that is more); an operation's result over
// Config.MaxResultBytes of JSON fails with [TooLarge]. What a person is
// shown (text lengths, control characters, icons, schema sizes, items whose
// key a dashboard cannot use) is capped and sanitized by relay/mcpwire.
//
// The go-sdk hands schemas over as Go maps, which lose the order of a
// form's fields. The connection reads along the messages the go-sdk reads
// (relay/readalong) and gives every consumer a tool's input and output
// schemas, and an elicitation's requested schema, as a json.RawMessage in
// the server's key order when that was seen. The same read-along keeps what
// MCP tasks (2025-11-25, experimental) need and the go-sdk drops; the task
// methods go through CallCustomMethod (tasks.go): a tool that requires or
// offers tasks, on a server that declared task-augmented tools/call, runs
// as a task ([Conn.CallToolTask]), polled with tasks/get at the server's
// pollInterval and woken by notifications/tasks/status. A tool that
// requires tasks is never called plainly; on a server without task support
// it is uncallable ([Lists.Uncallable]).
//
// With an [Asker], a connection advertises the asks of [Config.Modes] and
// hands the asker what a server asks of a person, in the go-sdk's types
// (asker.go): elicitations, 2026-07-28 input requests, the URL elicitations
// of a -32042 error (after which it retries the operation), sampling
// requests. It keeps what is protocol (the modes, the retries, the scope of
// each ask) and attributes each request to the operation that raised it
// (caller.go, [OperationOf]).
//
// Every server is offered the person's roots, with list changes
// ([Conn.SetRoots]). A server that declares logging is asked for
// Config.LogLevel and up ([Conn.SetLogLevel]), by logging/setLevel before
// 2026-07-28 and in every request's _meta from then on. Log messages and
// the server's notifications go to the [Journal] as the server sent them,
// and never to the relay's log above debug.
//
// The go-sdk's SEP-2549 list and read caches are turned off: the
// connection lists only on connect and after a list_changed notification,
// and then it must see the server's current lists.
//
// Of shared/wire, the connection uses what is the relay's own state rather
// than MCP's: lifecycle states ([wire.ServerState]), the OAuth status
// ([wire.AuthState]), subscriptions, roots and log levels ([wire.LogLevel])
// as the person set them, the activity kinds of its journal, transports
// ([wire.Transport]), [wire.Sanitize] and limits; a task's status and a
// tool's task support it reports as [wire.TaskStatus] and
// [wire.TaskSupport], the server's words unsanitized. It does not use
// wire's mirrors of MCP objects.
package conn
