// Package toolfixture is an MCP server for the dashboard's tool tests: the
// go-sdk over streamable HTTP on 127.0.0.1 (a [fixture.Loopback]), with
// tools that exercise what a person meets when calling tools:
//
//   - rich: a schema with every construct the dashboard's form draws;
//     it answers with the exact arguments it received, as text and as
//     structuredContent, and records them ([Server.Received]);
//   - contents: one block of every content type (text with ESC, NUL and
//     BEL, a PNG image, a WAV sound, a resource link, embedded text and
//     blob resources);
//   - shape_ok and shape_bad: an outputSchema the result matches, and one
//     it does not;
//   - big: a result of about 2 MB of text;
//   - wipe: marked destructive; it counts its runs ([Server.Wipes]);
//   - crash: stops the whole server (listener and connections) while the
//     call waits, as a crash would.
//
// The link of the contents tool points at [NotesURI], a text resource the
// fixture serves.
package toolfixture
