// Package readalong reads along the messages an MCP server sends a
// connection, beside the go-sdk, to keep what the go-sdk's decoding loses.
//
// [Tee] is an [http.RoundTripper] that shows a scan function every message
// of a JSON or event stream response (of either HTTP transport) as the
// go-sdk reads it, without holding it back or changing it; [Connection]
// does the same for a transport that is not HTTP (a process's standard
// output). A message over [MaxScanBytes] passes unread.
//
// A [Reader] keeps, from the messages it scans:
//   - [Schemas]: the key order of the schemas that become forms (requested
//     schemas of elicitations, input and output schemas of listed tools),
//     which the go-sdk decodes into maps; [Schemas.Ordered] encodes a
//     decoded schema in the server's order when it was seen;
//   - [Tasks]: what MCP tasks (2025-11-25) need and the go-sdk drops: the
//     tasks capability, each tool's execution.taskSupport, a created task
//     and its status notifications;
//   - [Notices]: the count of log and progress messages read and handled,
//     so that a call returns only after its own messages reached their
//     listeners.
//
// What it remembers is capped: at most 1024 schemas of at most 64 KiB
// each, 4 MiB together, the oldest forgotten first.
package readalong
