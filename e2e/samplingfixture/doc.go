// Package samplingfixture holds an MCP server that asks its client for
// model replies (sampling). It is a real HTTP server on 127.0.0.1, the
// official go-sdk over streamable HTTP, for the relay's Go tests and for
// browser tests of the dashboard; the model the relay drafts replies with
// is e2e/modelfixture's.
//
// Every tool reports what the server got back as an [Outcome], JSON in the
// tool result's text:
//
//	fx := samplingfixture.Start(t, samplingfixture.Options{}) // stopped by t.Cleanup
//	register(fx.URL())                                          // http://127.0.0.1:PORT/mcp
//	call("sample_tools")                                        // a card per round
//	out, _ := samplingfixture.ParseOutcome(resultText)          // {"rounds":2,"text":"..."}
//
// Tools (the stateful server uses sampling/createMessage; the stateless one,
// 2026-07-28, asks through input requests and keeps the conversation in its
// request state):
//   - sample_text: one request without tools: a question, an image, a
//     system prompt, stop sequences and model preferences;
//   - sample_tools: a conversation with the tool get_weather offered: each
//     reply that calls it gets the tool's result in a new request, which
//     carries the history, until a reply is text (at most [MaxRounds]);
//   - sample_everything (stateful only): the call go-sdk's
//     examples/server/everything makes, CreateMessage with empty params.
package samplingfixture
