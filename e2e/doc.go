// Package e2e holds the end-to-end tests of Switchboard: a real relay
// (relay/service) on 127.0.0.1, the MCP server of package fixture, and
// headless Chromium driven by chromedp. Each test is something a person sees
// on the dashboard, or a refusal a client meets on the WebSocket.
//
// Run them with make e2e, which builds the dashboard (static/dist/app.wasm)
// and installs Chromium when it is missing, or with
//
//	CHROMIUM=/path/to/chromium go test ./e2e/...
//
// go test -bench FirstRender ./e2e measures how fast the dashboard first
// shows the server list, cold and warm, and how many bytes app.wasm costs.
package e2e
