// Package mcpwire converts what an MCP connection (relay/conn) speaks, the
// go-sdk's MCP types, into what a dashboard is shown: the browser's own
// types of shared/wire. It is the one edge where a server's untrusted data
// becomes something a person sees, so it caps and sanitizes:
//   - a server's lists ([Converter]): items whose key (tool or prompt name,
//     argument name, resource URI, URI template) is empty, too long or holds
//     control or format characters are dropped rather than renamed, since a
//     renamed item could not be used; one-line text (titles, names, versions,
//     MIME types) is sanitized with [wire.Sanitize], descriptions and
//     instructions keep their line breaks, lose other control and format
//     characters and are cut at 8192 runes; schemas over 64 KiB and
//     annotations over 4 KiB are left out;
//   - icons: kept only as data: URIs of PNG, JPEG, GIF or WebP checked by
//     their bytes, at most [wire.MaxIconBytes] each and 2 MiB a list; https
//     icons are fetched through the client a [Converter] is given (the
//     guarded one, without any server's credentials) and inlined (icons.go);
//   - what a server said of itself ([Initialized]) and its capabilities;
//   - results ([ToolResult], with the check of structuredContent against
//     the tool's outputSchema, [PromptResult], [ReadResult],
//     [CompleteResult]), progress and tasks;
//   - what a server asks of a person ([Elicitation], [SamplingRequest]) and
//     the answers going back ([SamplingResult], [AgentReply]);
//   - the server's log messages ([LogEntry]);
//   - a connection's failure, as a dashboard's error ([Error]).
//
// Caps that protect the relay's memory while it reads a server (pages, item
// counts, bytes of a list, repeated keys, one message's size, a result's
// size) are the connection's: it holds what it reads. Caps on what is shown
// to a person are this package's.
//
// It does not import relay/conn, so that every room above a connection
// (relay/session, relay/gateway) can use it: where it needs what a
// connection says, it takes plain values or declares the small interface it
// reads.
package mcpwire
