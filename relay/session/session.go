package session

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sync"

	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// historySize is how many recent deltas a session keeps so that a
// reconnecting dashboard can resume instead of reloading a snapshot.
const historySize = 512

// Session is one user's state. Only its methods change it.
type Session struct {
	user string
	m    *Manager

	mu      sync.Mutex
	epoch   string
	seq     uint64
	servers map[string]*entry
	order   []string    // server ids in registration order
	history []sentDelta // the last historySize deltas, oldest first
	subs    map[*Subscriber]struct{}
	closed  bool
	asks    []wire.Ask              // pending asks in arrival order
	calls   []wire.Call             // calls in the state, in the order they started
	running map[string]*runningCall // running calls by id

	broker *broker.Broker // holds the asks while they wait
	// modelSlots bounds the sampling requests the model answers at once
	// for the user's servers in model mode; see sampling.go.
	modelSlots chan struct{}
	redial     sync.Mutex // one SetAskModes at a time
	// config serializes changes of the registrations (add, edit, connect,
	// remove, sync) with their store writes, outside mu.
	config sync.Mutex

	roots    []wire.Root         // the person's roots; see roots.go
	prefsMu  sync.Mutex          // one change of roots or client preferences at a time
	journals map[string]*journal // each server's logs and activity; see journal.go
	gathered []wire.Change       // journal changes waiting to be published
	flushing bool                // a flush of gathered is scheduled

	agentCalls   []wire.AgentCall // the latest agent calls, oldest first; under mu
	runningCalls uint64           // agent calls started, to name the running ones; under mu

	watchers []*watcher // Go-level listeners (agent.go), under mu
}

// entry is one registered server: its registration, the state last emitted
// by its connection, and the connection.
type entry struct {
	reg   store.Server
	state wire.Server
	conn  Connection
	modes wire.AskModes // the kinds of asks offered to the server
	dials int           // connections started for it; only the latest may install itself or emit
	prefs clientPrefs   // roots hidden, log level; read when first dialed
	// prefsLoaded is set once prefs were read from the store.
	prefsLoaded bool
}

type sentDelta struct {
	seq   uint64
	frame []byte
}

func newSession(user string, m *Manager) *Session {
	s := &Session{
		user:    user,
		m:       m,
		epoch:   randomHex(8),
		servers: map[string]*entry{},
		subs:    map[*Subscriber]struct{}{},

		modelSlots: make(chan struct{}, maxModelAnswers),
	}
	s.broker = m.newBroker(s)
	s.loadRoots()
	return s
}

// Snapshot returns a copy of the user's current state and its sequence number.
func (s *Session) Snapshot() (wire.Snapshot, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshotLocked(), s.seq
}

func (s *Session) snapshotLocked() wire.Snapshot {
	snap := wire.Snapshot{Epoch: s.epoch, User: s.user, Servers: make([]wire.Server, 0, len(s.order)), Asks: slices.Clone(s.asks), AgentCalls: slices.Clone(s.agentCalls), Calls: slices.Clone(s.calls)}
	snap.Roots, snap.Journals = slices.Clone(s.roots), s.journalsLocked()
	for _, id := range s.order {
		snap.Servers = append(snap.Servers, s.servers[id].state)
	}
	return snap
}

// restore adds a persisted registration and connects it.
func (s *Session) restore(reg store.Server) {
	s.mu.Lock()
	// The operator's servers are the session's own, from its start.
	if _, ok := s.servers[reg.ID]; ok || s.closed || isConfigured(reg) {
		s.mu.Unlock()
		return
	}
	e := s.addEntryLocked(reg)
	s.mu.Unlock()
	s.connect(e)
	s.resumeTasks(e)
}

// addEntryLocked registers e in memory and broadcasts it in state connecting.
func (s *Session) addEntryLocked(reg store.Server) *entry {
	e := &entry{reg: reg, state: wire.Server{State: wire.StateConnecting}}
	s.stampLocked(e, &e.state)
	s.servers[reg.ID] = e
	s.order = append(s.order, reg.ID)
	s.publishLocked([]wire.Change{serverChange(e.state)})
	return e
}

// connect dials e's server outside the lock (the dialer may emit at once).
// A dial that a later one superseded (a change of ask modes while it
// ran) closes its connection instead of installing it, and its emits are
// ignored, so that only one connection per server is ever alive.
func (s *Session) connect(e *entry) {
	s.mu.Lock()
	e.dials++
	dial, reg := e.dials, e.reg
	s.mu.Unlock()
	switch {
	case reg.Disconnected:
		s.update(e, dial, wire.Server{State: wire.StateFailed})
		return
	case reg.SecretsErr != nil:
		s.m.logger.Error("server secrets", "user", s.user, "server", reg.ID, "err", reg.SecretsErr)
		s.update(e, dial, wire.Server{State: wire.StateFailed, Error: errSecretsLost})
		return
	}
	ed := s.m.newEdge(s.m.logger.With("user", s.user, "server", reg.ID))
	var c Connection = dialed{s.m.dial(s.m.dialFor(reg), func(st conn.State) { s.update(e, dial, ed.server(st)) }), ed}
	s.mu.Lock()
	installed := s.servers[e.reg.ID] == e && !s.closed && e.dials == dial
	if installed {
		e.conn, c = c, e.conn
	}
	s.mu.Unlock()
	if c != nil { // removed, closed or superseded while dialing
		c.Close()
	}
	if installed {
		s.syncClient(e)
	}
}

// update folds the new state of e's connection number dial into the session
// and publishes what changed.
func (s *Session) update(e *entry, dial int, st wire.Server) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.servers[e.reg.ID] != e || e.dials != dial {
		return // removed or superseded: a late emit changes nothing
	}
	s.stampLocked(e, &st)
	st = st.Deduped()
	changes := wire.DiffServer(e.state, st)
	e.state = st
	s.publishLocked(changes)
}

// stampLocked makes the registration, not the connection, the source of a
// server's identity.
func (s *Session) stampLocked(e *entry, st *wire.Server) {
	st.ID, st.Name, st.URL, st.Transport = e.reg.ID, e.reg.Name, displayURL(e.reg), e.reg.Transport
	st.Configured = isConfigured(e.reg)
	stampConfig(e.reg, st)
	modes := e.modes
	st.AskModes = &modes
	stampClientLocked(e, st)
}

// publishLocked sends changes as the next delta to every subscriber.
func (s *Session) publishLocked(changes []wire.Change) {
	changes = s.takeGatheredLocked(changes)
	if len(changes) == 0 {
		return
	}
	f, err := wire.NewFrame(wire.TypeDelta, wire.Delta{Changes: changes})
	var b []byte
	if err == nil {
		f.Seq = s.seq + 1
		b, err = wire.Encode(f)
	}
	if err != nil {
		s.m.logger.Error("encode delta", "user", s.user, "err", err)
		return
	}
	s.seq++ // only once the frame exists, so the numbers stay contiguous
	if len(s.history) == historySize {
		copy(s.history, s.history[1:])
		s.history = s.history[:historySize-1]
	}
	s.history = append(s.history, sentDelta{seq: s.seq, frame: b})
	for sub := range s.subs {
		sub.send(b)
	}
	s.notifyLocked(changes)
}

// Subscribe attaches a dashboard. It first receives what it missed since
// hello (the missing deltas when this session still has them, otherwise a
// snapshot) and a synced frame, then every new delta.
func (s *Session) Subscribe(hello wire.Hello) *Subscriber {
	sub := newSubscriber(s)
	s.mu.Lock()
	closed := s.closed
	frames, err := s.catchUpLocked(hello)
	if !closed && err == nil {
		for _, b := range frames {
			sub.send(b)
		}
		sub.send(s.syncedLocked())
		s.subs[sub] = struct{}{}
	}
	s.mu.Unlock()
	switch {
	case closed:
		sub.closeWith(wire.CloseShuttingDown, "relay shutting down")
	case err != nil:
		s.m.logger.Error("encode snapshot", "user", s.user, "err", err)
		sub.closeWith(wire.CloseProtocolError, "internal error")
	}
	return sub
}

// catchUpLocked returns the frames that bring a dashboard from hello to now.
func (s *Session) catchUpLocked(hello wire.Hello) ([][]byte, error) {
	if missed, ok := s.missedLocked(hello); ok {
		return missed, nil
	}
	f, err := wire.NewFrame(wire.TypeSnapshot, s.snapshotLocked())
	if err != nil {
		return nil, err
	}
	f.Seq = s.seq
	b, err := wire.Encode(f)
	return [][]byte{b}, err
}

// syncedLocked is the frame that ends a catch-up.
func (s *Session) syncedLocked() []byte {
	b, _ := wire.Encode(wire.Frame{Type: wire.TypeSynced, Seq: s.seq}) // a bare frame always encodes
	return b
}

// missedLocked returns the deltas after hello's sequence number, if the
// dashboard is on this epoch and they are all still in the history.
func (s *Session) missedLocked(hello wire.Hello) ([][]byte, bool) {
	if hello.Epoch != s.epoch || hello.Seq > s.seq {
		return nil, false
	}
	if hello.Seq == s.seq {
		return nil, true
	}
	if len(s.history) == 0 || s.history[0].seq > hello.Seq+1 || s.seq-hello.Seq > outboxSize/2 {
		return nil, false // too old, or more than a snapshot is worth
	}
	start := int(hello.Seq + 1 - s.history[0].seq)
	missed := make([][]byte, 0, len(s.history)-start)
	for _, d := range s.history[start:] {
		missed = append(missed, d.frame)
	}
	return missed, true
}

func (s *Session) unsubscribe(sub *Subscriber) {
	s.mu.Lock()
	delete(s.subs, sub)
	s.mu.Unlock()
}

// close disconnects every dashboard and closes every connection.
func (s *Session) close() {
	s.mu.Lock()
	s.closed = true
	s.abandonCallsLocked("")
	var conns []Connection
	for _, e := range s.servers {
		if e.conn != nil {
			conns = append(conns, e.conn)
		}
	}
	subs := s.subs
	s.subs = map[*Subscriber]struct{}{}
	s.mu.Unlock()
	for sub := range subs {
		sub.closeWith(wire.CloseShuttingDown, "relay shutting down")
	}
	var wg sync.WaitGroup
	for _, c := range conns { // in parallel: closing may wait on each server
		wg.Go(func() { c.Close() })
	}
	wg.Wait()
}

func serverChange(st wire.Server) wire.Change {
	b, _ := json.Marshal(st.Meta()) // a wire.Server always marshals
	return wire.Change{Kind: wire.KindServer, Server: st.ID, Key: st.ID, Value: b}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
