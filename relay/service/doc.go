// Package service wires the relay together: store, authentication, sessions,
// connections, the WebSocket hub, the login page and the dashboard, behind
// one http.Handler. The switchboard command and the end-to-end tests both
// build the relay through it.
package service
