package session

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/metrics"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// historySize is how many recent deltas a session keeps so that a
// reconnecting dashboard can resume instead of reloading a snapshot.
const historySize = 512

// Session is one user's state: the owners of the user's servers (see
// [Server]) and what is the user's own (roots, the agent calls shown, the
// asks waiting in the broker), and the sequence of deltas that keeps every
// open dashboard in step. Only its methods and its servers' change it.
type Session struct {
	user string
	m    *Manager

	mu      sync.Mutex
	epoch   string
	seq     uint64
	servers map[string]*Server
	order   []string    // server ids in registration order
	history []sentDelta // the last historySize deltas, oldest first
	subs    map[*Subscriber]struct{}
	closed  bool
	owned   bool // started by Manager.Own; under Manager.mu

	broker *broker.Broker // holds the asks while they wait
	// modelSlots bounds the sampling requests the model answers at once
	// for the user's servers in model mode; see sampling.go.
	modelSlots chan struct{}
	redial     sync.Mutex // one SetAskModes at a time
	// config serializes changes of the registrations (add, edit, connect,
	// remove, sync) with their store writes, outside mu.
	config sync.Mutex

	roots    []wire.Root      // the person's roots; see roots.go
	prefsMu  sync.Mutex       // one change of roots or client preferences at a time
	gathered []wire.Change    // journal changes waiting to be published
	flushing bool             // a flush of gathered is scheduled
	calls    atomic.Uint64    // calls started, to name an agent's running ones
	running  int              // calls in flight on all servers; under mu
	agents   []wire.AgentCall // the latest agent calls, oldest first

	// chat holds the chat's part of the state: Chats and ChatTurns (chats.go).
	chat wire.Snapshot

	watchers []*watcher // Go-level listeners (watch.go), under mu
	arrivals uint64     // calls and asks shown so far (Server.arrived)
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
		servers: map[string]*Server{},
		subs:    map[*Subscriber]struct{}{},

		modelSlots: make(chan struct{}, maxModelAnswers),
	}
	s.broker = m.newBroker(s)
	s.loadRoots()
	s.loadChats()
	return s
}

// Snapshot returns a copy of the user's current state and its sequence number.
func (s *Session) Snapshot() (wire.Snapshot, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshotLocked(), s.seq
}

func (s *Session) snapshotLocked() wire.Snapshot {
	snap := wire.Snapshot{Epoch: s.epoch, User: s.user, Servers: make([]wire.Server, 0, len(s.order)),
		AgentCalls: slices.Clone(s.agents), Roots: slices.Clone(s.roots), Chats: s.chat.Chats, ChatTurns: s.chat.ChatTurns,
		Catalog: s.m.publicCatalog()}
	for _, id := range s.order {
		o := s.servers[id]
		snap.Servers = append(snap.Servers, o.state)
		snap.Asks = append(snap.Asks, o.asks...)
		snap.Calls = append(snap.Calls, o.calls...)
		if j := o.journal.view(id); len(j.Logs) > 0 || len(j.Activity) > 0 {
			snap.Journals = append(snap.Journals, j)
		}
	}
	// As the deltas showed them: asks and calls in the order they
	// arrived, whatever their servers.
	arrived := func(kind, server, id string) uint64 { return s.servers[server].arrived[kind+id] }
	slices.SortStableFunc(snap.Asks, func(a, b wire.Ask) int {
		return cmp.Compare(arrived("ask:", a.Server, a.ID), arrived("ask:", b.Server, b.ID))
	})
	slices.SortStableFunc(snap.Calls, func(a, b wire.Call) int {
		return cmp.Compare(arrived("call:", a.Server, a.ID), arrived("call:", b.Server, b.ID))
	})
	return snap
}

// Servers returns the current state of the user's servers, in registration
// order.
func (s *Session) Servers() []wire.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]wire.Server, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.servers[id].state)
	}
	return out
}

// Server returns the owner of the user's server id.
func (s *Session) Server(id string) (*Server, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.servers[id]
	return o, ok
}

// server returns the owner of server id, or a [*wire.Error].
func (s *Session) server(id string) (*Server, error) {
	if o, ok := s.Server(id); ok {
		return o, nil
	}
	return nil, wire.NewError(wire.CodeNotFound, "no such server")
}

// restore adds a persisted registration and connects it.
func (s *Session) restore(reg store.Server) {
	s.mu.Lock()
	// The operator's servers are the session's own, from its start.
	if _, ok := s.servers[reg.ID]; ok || s.closed || isConfigured(reg) {
		s.mu.Unlock()
		return
	}
	o := s.newServerLocked(reg)
	s.mu.Unlock()
	o.connect()
	o.resumeTasks()
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
	metrics.DeltaSent(len(s.subs))
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

// close disconnects every dashboard and closes every connection. The
// calls in flight stop without a trace: a restart follows their tasks
// again.
func (s *Session) close() {
	s.mu.Lock()
	s.closed = true
	var conns []Connection
	for _, o := range s.servers {
		o.abandonCallsLocked()
		if o.conn != nil {
			conns = append(conns, o.conn)
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

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
