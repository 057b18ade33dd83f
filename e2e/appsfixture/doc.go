// Package appsfixture is an MCP server of hostile MCP Apps views for the
// end-to-end tests of the dashboard's sandbox: the go-sdk over streamable
// HTTP on 127.0.0.1 (a [fixture.Loopback]), with one tool per attack, each
// naming its view (a ui:// resource of type text/html;profile=mcp-app) in
// its _meta.ui.resourceUri:
//
//   - navigate_top: assigns top.location and parent.location;
//   - read_parent: reads parent.document, top.document.cookie, its own
//     cookie, localStorage, sessionStorage and indexedDB;
//   - forge_messages: posts forged messages to parent and top (a fake
//     ui/notifications/sandbox-resource-ready with HTML of its own, a
//     sandbox-proxy-ready, answers to ids it guesses, a tool result
//     claiming another view, a tools/call straight to top);
//   - flood: posts tools/call requests of the app-only tick tool to its
//     parent (the proxy), bursts of 1,000 every 20 ms, until it is stopped
//     (it never reports);
//   - flood_top: posts the same bursts to the top window, past the proxy;
//   - huge_document: a view of 50 MB;
//   - fetch_undeclared: declares no network and fetches the probe server;
//   - fetch_declared: declares the probe server in
//     _meta.ui.csp.connectDomains and fetches it;
//   - ask_permissions: declares geolocation and clipboard-write in
//     _meta.ui.permissions and reports which features its frame is
//     allowed;
//   - model_context: gives the model context (ui/update-model-context)
//     and reports whether the host took it;
//   - partial_input: waits for its call's whole arguments
//     (ui/notifications/tool-input) and reports them with every partial
//     input (ui/notifications/tool-input-partial) it got before;
//   - full_screen: asks to fill the window at once and, when refused, again
//     from a click on its button (#go-full); it shows each display change
//     it is told in #status ("fullscreen 1280"); once it filled the window and
//     is back inline (or was refused twice), it reports the modes it was
//     answered and the display changes it was told.
//
// Beside it runs a probe server, a second loopback HTTP server that answers
// any origin (Access-Control-Allow-Origin: *) and records every request
// ([Server.Probes]): the hostile views aim their network and navigation at
// it, so a test sees what got out.
//
// Each view speaks nothing but JSON-RPC over postMessage, written by hand:
// ui/initialize, ui/notifications/initialized, then its attack, then it
// reports what happened by calling the app-only report tool; the fixture
// records the reports ([Server.Reports], [Server.WaitReport]).
package appsfixture
