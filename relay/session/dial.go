package session

import (
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/servercfg"
	"github.com/switchboard-mcp/switchboard/shared/wire"
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
func (d *dialed) Close() error {
	d.edge.stop()
	return d.Connection.Close()
}

// connect dials o's server outside the lock (the dialer may report at
// once). A dial that a later one superseded (a change of ask modes while
// it ran) closes its connection instead of installing it, and its reports
// are ignored, so that only one connection per server is ever alive.
func (o *Server) connect() {
	s := o.s
	s.mu.Lock()
	o.dials++
	dial, reg := o.dials, o.reg
	s.mu.Unlock()
	switch {
	case reg.Disconnected:
		o.update(dial, wire.Server{State: wire.StateFailed}, nil, nil)
		return
	case reg.SecretsErr != nil:
		s.m.logger.Error("server secrets", "user", s.user, "server", reg.ID, "err", reg.SecretsErr)
		o.update(dial, wire.Server{State: wire.StateFailed, Error: errSecretsLost}, nil, nil)
		return
	}
	ed := s.m.newEdge(s.m.logger.With("user", s.user, "server", reg.ID))
	c := &dialed{s.m.dial(o.dialFor(reg), func(st conn.State) { o.update(dial, ed.server(st), st.Init, st.Lists) }), ed}
	s.mu.Lock()
	installed := !o.closed && !s.closed && o.dials == dial
	old := o.conn
	if installed {
		o.conn, old = c, nil
	}
	s.mu.Unlock()
	if !installed { // removed, closed or superseded while dialing
		c.Close()
		return
	}
	if old != nil {
		old.Close()
	}
	o.syncClient()
}

// dialFor loads what a connection to reg needs. It reads the store, so it
// runs outside the session's lock.
func (o *Server) dialFor(reg store.Server) Dial {
	asker, modes := o.asking(reg)
	return Dial{Reg: reg, Asker: asker, Modes: modes, Client: o.clientFeatures(), Subscriptions: o.s.m.subscriptions(reg)}
}
