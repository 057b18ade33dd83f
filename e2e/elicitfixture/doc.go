// Package elicitfixture holds MCP servers that ask the person on the other
// side of the relay for things: elicitation forms of every field type, URL
// consent with its completion notification, URL elicitation required
// (-32042), 2026-07-28 input requests, a server that withdraws its own
// question, and hostile requests. They are the official go-sdk over
// streamable HTTP on 127.0.0.1, for the relay's Go tests and for browser
// tests of the dashboard.
//
// Every tool reports what the server got back as an [Outcome], JSON in the
// tool result's text, so that a test can check what reached the server:
//
//	fx := elicitfixture.Start(t, elicitfixture.Options{}) // stopped by t.Cleanup
//	register(fx.URL())                                     // http://127.0.0.1:PORT/mcp
//	call("form_strings")                                   // the dashboard shows a form
//	out, _ := elicitfixture.ParseOutcome(resultText)       // {"action":"accept","content":{...}}
//
// The tools of the stateful server (the initialize era, which has
// elicitation/create):
//   - form_<name> for each of [Forms]: one form, answered with [Form.Example]
//     in tests;
//   - url_consent: a URL elicitation; the URL is a page of the fixture that,
//     when opened, sends notifications/elicitation/complete;
//   - url_required: fails with -32042 until its URL was opened, then
//     succeeds with [SetupDone];
//   - url_required_again: fails with -32042 naming the same elicitation even
//     after it completed;
//   - cancel_self: asks, then withdraws its question after afterMs
//     milliseconds and keeps the call open holdMs more, so that its
//     notifications/cancelled reaches the client (the go-sdk sends it after
//     the fact, on the call's stream);
//   - hostile_javascript, hostile_http, hostile_homograph, hostile_punycode,
//     hostile_schema, hostile_long_message: what a hostile server might ask.
//
// The stateless server (2026-07-28) asks through input requests in its
// results: input_form and input_pair (a form and a URL at once).
package elicitfixture
