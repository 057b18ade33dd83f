package session

import (
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/servercfg"
)

// Dial is everything a connection to one server needs, loaded by the
// session with the server's registration and handed to the [Dialer]: the
// dialer never calls back into the session.
type Dial struct {
	Reg store.Server
	// Asker puts the server's asks before the person; Modes are the kinds
	// to advertise.
	Asker conn.Asker
	Modes conn.AskModes
	// Client are the person's client features for the server (roots, log
	// level, the journal of its logs).
	Client ClientFeatures
	// Subscriptions are the resource URIs to subscribe to again.
	Subscriptions []string
}

// Dialer starts a connection to a registered server. It must return at once;
// the connection reports its state through report, one call at a time
// ([conn.Start]).
type Dialer func(d Dial, report func(conn.State)) Connection

// OAuth reports whether the relay's OAuth authorizes the connection: not
// when the person set an Authorization header, which is then sent as is.
func (d Dial) OAuth() bool {
	_, set := d.Reg.Headers[servercfg.Authorization]
	return !set
}

// dialed is a dialed connection with the edge that converts its states:
// closing it stops the edge's conversion (an icon fetch in flight) first.
type dialed struct {
	Connection
	edge *edge
}

// Close implements [Connection].
func (d dialed) Close() error {
	d.edge.stop()
	return d.Connection.Close()
}

// dialFor loads what a connection to reg needs. It reads the store, so it
// runs outside the session's lock.
func (m *Manager) dialFor(reg store.Server) Dial {
	asker, modes := m.Asking(reg)
	return Dial{Reg: reg, Asker: asker, Modes: modes, Client: m.ClientFeatures(reg), Subscriptions: m.Subscriptions(reg)}
}
