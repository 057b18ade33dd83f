// Package web is the Switchboard dashboard: go-app components, one view per
// file, over the client store of package [store].
//
// [Dashboard] is the page; [Routes] registers it for the wasm main and for
// the relay, which prerenders it. Components hold only view state (what is
// typed, what is open); what the relay said lives in the store, which the
// page connects to the relay's WebSocket on the same origin (see relay.go).
// Everything a server sends is rendered as text, never as HTML, with its
// control characters shown as escapes where it is free text.
//
// Calling a tool: [ToolPanel] draws a form from the tool's inputSchema
// (shared/schema's [schema.Input]; its entries in tool_form_state.go, its
// inputs in tool_form.go), with a raw JSON mode beside it; tool_result.go
// renders a result block by block; tool_history.go keeps the calls made in
// this tab in its session storage, per user.
//
// The chat ([ChatPage], chat*.go) shows the person's conversations, which
// the relay runs: a conversation's stored turns, read with chat.get, under
// its latest turn from the state, which streams; each turn and each part
// is a component of its own, so a stream re-renders what grows only.
//
// go-app keeps the first closure of an event handler whose scope does not
// change, so handlers read the component's state when they run rather than
// capture values of the render.
package web
