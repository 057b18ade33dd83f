package session

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Asks are a server's requests for a person (elicitation forms, consent to
// open a URL). Each session has a broker that holds them while they wait;
// the session holds them as the dashboards see them: in the snapshot, in
// arrival order, and changed by KindAsk deltas, so that every dashboard of
// the user shows them, and one that reloads or reconnects shows them again.

// Elicitation modes as a server's setting stores them.
const (
	elicitModesPrefix = "elicitation.modes:" // + user + ":" + server id
	modeSeparator     = ","
	settingTimeout    = 5 * time.Second
)

// SetAskConfig tunes the brokers of the sessions created from now on. Call
// it before the first session.
func (m *Manager) SetAskConfig(cfg broker.Config) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.asks = cfg
}

// newBroker is the broker of session s.
func (m *Manager) newBroker(s *Session) *broker.Broker {
	cfg := m.asks
	if cfg.Logger == nil {
		cfg.Logger = m.logger.With("user", s.user)
	}
	return broker.New(askSink{s}, cfg)
}

// Elicitation returns what a connection to reg needs to put its server's
// elicitations before reg's user: an asker bound to the server, and the
// modes to advertise, both unless narrowed by [Session.SetElicitModes].
// A [Dialer] calls it.
func (m *Manager) Elicitation(reg store.Server) (conn.Asker, conn.ElicitModes) {
	s := m.Session(reg.User)
	asker := serverAsker{b: s.broker, server: reg.ID, name: reg.Name}
	ctx, cancel := context.WithTimeout(context.Background(), settingTimeout)
	defer cancel()
	value, ok, err := m.store.Setting(ctx, elicitModesKey(reg.User, reg.ID))
	switch {
	case err != nil:
		m.logger.Error("read elicitation modes", "user", reg.User, "server", reg.ID, "err", err)
		return asker, s.recordModes(reg.ID, conn.AllElicitModes)
	case !ok:
		return asker, s.recordModes(reg.ID, conn.AllElicitModes)
	}
	return asker, s.recordModes(reg.ID, decodeModes(value))
}

// recordModes notes the modes offered to server id, for the dashboard; the
// connection's next state carries them.
func (s *Session) recordModes(id string, modes conn.ElicitModes) conn.ElicitModes {
	s.mu.Lock()
	if e, ok := s.servers[id]; ok {
		e.modes = modes
	}
	s.mu.Unlock()
	return modes
}

// modeNames lists modes as the wire names them.
func modeNames(m conn.ElicitModes) []string {
	var names []string
	if m.Form {
		names = append(names, wire.ModeForm)
	}
	if m.URL {
		names = append(names, wire.ModeURL)
	}
	return names
}

// SetElicitModes narrows (or widens) the elicitation modes advertised to
// server id, persists them and reconnects the server, since modes are
// advertised when a session starts.
func (s *Session) SetElicitModes(ctx context.Context, id string, modes conn.ElicitModes) error {
	s.redial.Lock()
	defer s.redial.Unlock()
	s.mu.Lock()
	e, ok := s.servers[id]
	s.mu.Unlock()
	if !ok {
		return wire.NewError(wire.CodeNotFound, "no such server")
	}
	if err := s.m.store.SetSetting(ctx, elicitModesKey(s.user, id), encodeModes(modes)); err != nil {
		s.m.logger.Error("store elicitation modes", "user", s.user, "server", id, "err", err)
		return wire.NewError(wire.CodeInternal, "could not save the elicitation modes")
	}
	s.mu.Lock()
	old := e.conn
	e.conn = nil
	s.mu.Unlock()
	if old != nil {
		old.Close()
	}
	s.connect(e)
	return nil
}

func elicitModesKey(user, server string) string {
	return elicitModesPrefix + user + ":" + server
}

func encodeModes(m conn.ElicitModes) string {
	return strings.Join(modeNames(m), modeSeparator)
}

func decodeModes(s string) conn.ElicitModes {
	modes := strings.Split(s, modeSeparator)
	return conn.ElicitModes{Form: slices.Contains(modes, wire.ModeForm), URL: slices.Contains(modes, wire.ModeURL)}
}

// serverAsker puts one server's asks before its user through the broker.
// The registration, not the connection, names the server.
type serverAsker struct {
	b            *broker.Broker
	server, name string
}

// Ask implements [conn.Asker].
func (a serverAsker) Ask(ctx context.Context, ask wire.Ask) (conn.Answer, error) {
	ask.Server, ask.ServerName = a.server, a.name
	ans, err := a.b.Ask(ctx, ask)
	return conn.Answer(ans), err
}

// Complete implements [conn.Asker].
func (a serverAsker) Complete(elicitationID string) { a.b.Completed(a.server, elicitationID) }

// askSink is a session as its broker's sink.
type askSink struct{ s *Session }

// PutAsk implements [broker.Sink].
func (k askSink) PutAsk(a wire.Ask) bool { return k.s.putAsk(a) }

// RemoveAsk implements [broker.Sink].
func (k askSink) RemoveAsk(id string) { k.s.removeAsk(id) }

// putAsk shows a, or its new state, on every dashboard; it reports false
// when a's server is gone or the session closed.
func (s *Session) putAsk(a wire.Ask) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.servers[a.Server] == nil {
		return false
	}
	if i := s.askIndexLocked(a.ID); i >= 0 {
		s.asks[i] = a
	} else {
		s.asks = append(s.asks, a)
		s.servers[a.Server].asked++
	}
	b, _ := json.Marshal(a) // a wire.Ask always marshals
	s.publishLocked([]wire.Change{{Kind: wire.KindAsk, Server: a.Server, Key: a.ID, Value: b}})
	return true
}

// removeAsk takes the ask id off every dashboard.
func (s *Session) removeAsk(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.askIndexLocked(id)
	if i < 0 {
		return // gone with its server
	}
	a := s.asks[i]
	s.asks = slices.Delete(s.asks, i, i+1)
	s.publishLocked([]wire.Change{{Kind: wire.KindAsk, Server: a.Server, Key: id, Remove: true}})
}

func (s *Session) askIndexLocked(id string) int {
	return slices.IndexFunc(s.asks, func(a wire.Ask) bool { return a.ID == id })
}

// dropAsksLocked forgets the asks of a removed server: the server's removal
// removes them on the dashboards too. Its connection, closing, withdraws them
// from the broker.
func (s *Session) dropAsksLocked(server string) {
	s.asks = slices.DeleteFunc(s.asks, func(a wire.Ask) bool { return a.Server == server })
}

// askOp runs an op on asks.
func (s *Session) askOp(f wire.Frame) (any, error) {
	if f.Op == wire.OpAnswerAsk {
		var args wire.AnswerAskArgs
		if err := decodeArgs(f.Data, &args); err != nil {
			return nil, err
		}
		return struct{}{}, s.broker.Answer(args)
	}
	var args wire.AskArgs
	if err := decodeArgs(f.Data, &args); err != nil {
		return nil, err
	}
	switch f.Op {
	case wire.OpDismissAsk:
		return struct{}{}, s.broker.Dismiss(args.Ask)
	case wire.OpCompleteAsk:
		return struct{}{}, s.broker.MarkDone(args.Ask)
	}
	return nil, wire.NewError(wire.CodeUnknownOp, fmt.Sprintf("unknown op %q", f.Op))
}
