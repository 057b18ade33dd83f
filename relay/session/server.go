package session

import (
	"encoding/json"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/metrics"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Server owns one registered server of one user: its registration, its
// state as the dashboards see it and the MCP lists agents see, its live
// connection, its journal, the calls made on it and the asks it raised.
// Every caller runs an operation on the server through it (call.go).
// Removing the server is closing its owner: what it held goes with it.
//
// Its fields are guarded by its session's mu, the lock of the sequence of
// deltas they are published in.
type Server struct {
	s   *Session
	reg store.Server

	state wire.Server           // as the dashboards see it
	init  *mcp.InitializeResult // the server's, from the connection's last discovery
	lists *conn.Lists           // the lists as the server sent them, from the last discovery

	conn  *dialed       // the live connection; nil while there is none
	dials int           // connections started for it; only the latest may install itself or report
	modes wire.AskModes // the kinds of asks offered to the server
	prefs clientPrefs   // roots hidden, log level; read when first dialed
	// prefsLoaded is set once prefs were read from the store.
	prefsLoaded bool

	journal journal                 // its logs and activity (journal.go)
	calls   []wire.Call             // the person's calls in the state, in the order they started
	running map[string]*runningCall // the calls in flight, by id (call.go)
	asks    []wire.Ask              // the asks it raised, as shown, in arrival order
	// arrived numbers each call and ask shown in the order the session
	// put them, so that a snapshot lists them as the deltas did, whatever
	// their servers; by "call:" or "ask:" and the id.
	arrived map[string]uint64

	closed bool // removed: nothing of it changes any more
}

// newServerLocked registers reg in memory and broadcasts it in state
// connecting.
func (s *Session) newServerLocked(reg store.Server) *Server {
	o := &Server{s: s, reg: reg, state: wire.Server{State: wire.StateConnecting}, running: map[string]*runningCall{}, arrived: map[string]uint64{}}
	o.stampLocked(&o.state)
	s.servers[reg.ID] = o
	s.order = append(s.order, reg.ID)
	s.publishLocked([]wire.Change{serverChange(o.state)})
	s.notifyLocked(reg.ID)
	return o
}

// ID is the server's id.
func (o *Server) ID() string { return o.reg.ID }

// State returns the server as the dashboards see it.
func (o *Server) State() wire.Server {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	return o.state
}

// Lists returns the server's lists as it sent them, from the connection's
// last discovery, and the server's capabilities; nil before the first.
// Agents are shown these, not the dashboards' sanitized copies.
func (o *Server) Lists() (*conn.Lists, *mcp.ServerCapabilities) {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	if o.init == nil {
		return o.lists, nil
	}
	return o.lists, o.init.Capabilities
}

// Connection returns the server's live connection, or a [*wire.Error]
// saying why there is none.
func (o *Server) Connection() (Connection, error) {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	return o.connectionLocked()
}

func (o *Server) connectionLocked() (Connection, error) {
	switch {
	case o.closed:
		return nil, wire.NewError(wire.CodeNotFound, "no such server")
	case o.conn == nil:
		return nil, wire.NewError(wire.CodeNotReady, "the server is not connected: the relay is still connecting to it")
	}
	return o.conn.Connection, nil
}

// update folds the state the connection number dial reported into the
// server and publishes what changed.
func (o *Server) update(dial int, st wire.Server, init *mcp.InitializeResult, lists *conn.Lists) {
	s := o.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if o.closed || o.dials != dial {
		return // removed or superseded: a late report changes nothing
	}
	o.stampLocked(&st)
	st = st.Deduped()
	changes := wire.DiffServer(o.state, st)
	listsChanged := lists != o.lists || init != o.init
	metrics.ConnectionMoved(string(o.state.State), string(st.State))
	o.state, o.init, o.lists = st, init, lists
	s.publishLocked(changes)
	if len(changes) > 0 || listsChanged {
		s.notifyLocked(o.reg.ID)
	}
}

// restampLocked shows a change of the registration or of the person's
// choices for the server.
func (o *Server) restampLocked() {
	st := o.state
	o.stampLocked(&st)
	changes := wire.DiffServer(o.state, st)
	o.state = st
	o.s.publishLocked(changes)
	if len(changes) > 0 {
		o.s.notifyLocked(o.reg.ID)
	}
}

// stampLocked makes the registration, not the connection, the source of a
// server's identity, and shows the person's choices for it.
func (o *Server) stampLocked(st *wire.Server) {
	st.ID, st.Name, st.URL, st.Transport = o.reg.ID, o.reg.Name, displayURL(o.reg), wire.Transport(o.reg.Transport)
	st.Configured = isConfigured(o.reg)
	stampConfig(o.reg, st)
	modes := o.modes
	st.AskModes = &modes
	st.RootsExcluded = o.prefs.RootsHidden
	if st.Logging != nil {
		st.Logging = &wire.Logging{Level: wire.LogLevel(o.prefs.LogLevel)}
	}
}

// closeLocked removes the server: its state, journal, calls and asks leave
// the dashboards with it (one change), the calls it runs stop without a
// trace, and the connection it returns is the caller's to close, outside
// the lock.
func (o *Server) closeLocked() Connection {
	s := o.s
	o.closed = true
	metrics.ConnectionMoved(string(o.state.State), "")
	o.abandonCallsLocked()
	delete(s.servers, o.reg.ID)
	s.order = slices.DeleteFunc(s.order, func(id string) bool { return id == o.reg.ID })
	s.publishLocked([]wire.Change{{Kind: wire.KindServer, Server: o.reg.ID, Key: o.reg.ID, Remove: true}})
	s.notifyLocked(o.reg.ID)
	c := o.conn
	o.conn = nil
	if c == nil {
		return nil
	}
	return c
}

// putAskLocked shows a, or its new state.
func (o *Server) putAskLocked(a wire.Ask) {
	if i := slices.IndexFunc(o.asks, func(x wire.Ask) bool { return x.ID == a.ID }); i >= 0 {
		o.asks[i] = a
	} else {
		o.asks = append(o.asks, a)
		o.arriveLocked("ask:" + a.ID)
	}
	b, _ := json.Marshal(a) // a wire.Ask always marshals
	o.s.publishLocked([]wire.Change{{Kind: wire.KindAsk, Server: o.reg.ID, Key: a.ID, Value: b}})
}

// removeAskLocked takes the ask id off the dashboards; it reports whether
// the server had it.
func (o *Server) removeAskLocked(id string) bool {
	i := slices.IndexFunc(o.asks, func(x wire.Ask) bool { return x.ID == id })
	if i < 0 {
		return false
	}
	o.asks = slices.Delete(o.asks, i, i+1)
	delete(o.arrived, "ask:"+id)
	o.s.publishLocked([]wire.Change{{Kind: wire.KindAsk, Server: o.reg.ID, Key: id, Remove: true}})
	return true
}

// arriveLocked numbers the call or ask key as the next to arrive.
func (o *Server) arriveLocked(key string) {
	o.s.arrivals++
	o.arrived[key] = o.s.arrivals
}

func serverChange(st wire.Server) wire.Change {
	b, _ := json.Marshal(st.Meta()) // a wire.Server always marshals
	return wire.Change{Kind: wire.KindServer, Server: st.ID, Key: st.ID, Value: b}
}
