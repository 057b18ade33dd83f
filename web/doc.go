// Package web is the Switchboard dashboard: go-app components, one view per
// file, over the client store of package [store].
//
// [Dashboard] is the page; [Routes] registers it for the wasm main and for
// the relay, which prerenders it. Components hold only view state (what is
// typed, what is open); what the relay said lives in the store, which the
// page connects to the relay's WebSocket on the same origin (see relay.go).
// Everything a server sends is rendered as text, never as HTML.
package web
