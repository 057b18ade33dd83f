// Package e2e holds the end-to-end tests of Switchboard: a real relay
// (relay/service) on 127.0.0.1, fixture servers, and headless Chromium
// driven by chromedp. Each test is something a person sees on the
// dashboard, or a refusal a client meets on the WebSocket.
//
// The fixtures, each a package of its own with its own tests:
//   - fixture: an MCP server whose tool list changes on demand;
//   - oauthfixture: an OAuth authorization server with a consent page, and
//     an MCP server that requires its tokens;
//   - elicitfixture: MCP servers that ask a person things (every form
//     variant, URL consent, -32042, input requests, hostile payloads);
//   - modelfixture: a model server speaking OpenAI's and Anthropic's
//     streaming APIs, scripted per test, for the chat;
//   - chatfixture: an MCP server whose tools the chat's model calls (one
//     asks a form question, one is destructive);
//   - appsfixture: an MCP server of hostile MCP Apps views, one tool per
//     attack, each view reporting what it got through an app-only tool,
//     and a probe server they aim their network at.
//
// apps/ pins the official MCP Apps example server
// (@modelcontextprotocol/server-basic-vanillajs, make apps-server), which
// the Apps tests render; the mini host of apps_minihost_test.go shows
// views without the dashboard, to test the helpers that look inside an
// App's frames.
//
// conformance/ runs the official MCP conformance suite (make conformance).
//
// Run them with make e2e, which builds the dashboard (static/dist/app.wasm)
// and installs Chromium when it is missing, or with
//
//	CHROMIUM=/path/to/chromium go test ./e2e/...
//
// go test -bench FirstRender ./e2e measures how fast the dashboard first
// shows the server list, cold and warm, and how many bytes app.wasm costs.
package e2e
