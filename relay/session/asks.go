package session

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Asks are a server's requests for a person (elicitation forms, consent to
// open a URL, sampling). Each session has a broker that holds them while they wait;
// the session holds them as the dashboards see them: in the snapshot, in
// arrival order, and changed by KindAsk deltas, so that every dashboard of
// the user shows them, and one that reloads or reconnects shows them again.

// newBroker is the broker of session s.
func (m *Manager) newBroker(s *Session) *broker.Broker {
	cfg := m.asks
	if cfg.Logger == nil {
		cfg.Logger = m.logger.With("user", s.user)
	}
	return broker.New(askSink{s}, cfg)
}

// serverAsker puts one server's asks before its user through the broker,
// or, for sampling in [wire.SamplingModel] mode, before the model. The
// registration, not the connection, names the server.
type serverAsker struct {
	b            *broker.Broker
	server, name string
	sampling     wire.SamplingMode // the server's sampling mode
	drafter      Drafter           // nil without a configured model
	modelSlots   chan struct{}     // the session's; see [maxModelAnswers]
}

// Ask implements [conn.Asker].
func (a serverAsker) Ask(ctx context.Context, ask wire.Ask) (conn.Answer, error) {
	ask.Server, ask.ServerName = a.server, a.name
	if ask.Kind == wire.AskSampling && ask.Sampling != nil {
		if a.drafter != nil && a.sampling == wire.SamplingModel {
			return a.byModel(ctx, ask.Sampling)
		}
		if a.drafter != nil {
			req := *ask.Sampling
			req.Drafter = a.drafter.Name()
			ask.Sampling = &req
		}
	}
	ans, err := a.b.Ask(withForward(ctx), ask)
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

// handleAskOps registers the ops on asks: answer, dismiss, complete, draft
// and forward.
func (m *Manager) handleAskOps(mux *ops.Mux) {
	mux.Handle(wire.OpAnswerAsk, on(m, func(_ context.Context, s *Session, a wire.AnswerAskArgs) (any, error) {
		return struct{}{}, s.broker.Answer(a)
	}))
	mux.Handle(wire.OpDismissAsk, on(m, func(_ context.Context, s *Session, a wire.AskArgs) (any, error) {
		return struct{}{}, s.broker.Dismiss(a.Ask)
	}))
	mux.Handle(wire.OpCompleteAsk, on(m, func(_ context.Context, s *Session, a wire.AskArgs) (any, error) {
		return struct{}{}, s.broker.MarkDone(a.Ask)
	}))
	mux.Handle(wire.OpDraftAsk, on(m, func(ctx context.Context, s *Session, a wire.AskArgs) (any, error) { return s.draft(ctx, a.Ask) }))
	mux.Handle(wire.OpForwardAsk, on(m, func(ctx context.Context, s *Session, a wire.AskArgs) (any, error) { return s.forwardAsk(ctx, a) }))
}
