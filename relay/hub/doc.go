// Package hub is the relay's WebSocket endpoint. It checks the Origin,
// authenticates the socket (session cookie or bearer header before the
// upgrade, or a first [wire.TypeAuth] frame for embedded dashboards), reads
// the dashboard's hello, attaches it to its user's session and pumps frames
// both ways until either side goes away or the token expires.
package hub
