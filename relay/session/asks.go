package session

import (
	"context"
	"errors"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Asks are a server's requests for a person (elicitation forms, consent to
// open a URL, sampling). Each session has a broker that holds them while
// they wait (the user's cap on pending asks, first answer wins, timeouts);
// each server's owner holds its asks as the dashboards see them: in the
// snapshot, in arrival order, and changed by KindAsk deltas, so that every
// dashboard of the user shows them, and one that reloads or reconnects
// shows them again. A server removed takes its shown asks with it, and its
// connection, closing, withdraws them from the broker.

// newBroker is the broker of session s.
func (m *Manager) newBroker(s *Session) *broker.Broker {
	cfg := m.asks
	if cfg.Logger == nil {
		cfg.Logger = m.logger.With("user", s.user)
	}
	return broker.New(askSink{s}, cfg)
}

// serverAsker puts one server's asks before its user through the broker,
// or, for sampling in [wire.SamplingModel] mode, before the model: the
// session's [conn.Asker]. It converts what the connection hands it, in the
// go-sdk's types, into asks (relay/mcpwire), labels them with the caller of
// the operation they were raised during (caller.go), and turns the answers
// and the broker's outcomes into the server's answer. The registration, not
// the connection, names the server.
type serverAsker struct {
	b            *broker.Broker
	server, name string
	sampling     wire.SamplingMode // the server's sampling mode
	drafter      Drafter           // nil without a configured model
	modelSlots   chan struct{}     // the session's; see [maxModelAnswers]
	log          *slog.Logger
}

// Elicit implements [conn.Asker].
func (a serverAsker) Elicit(ctx context.Context, p *mcp.ElicitParams, from conn.Origin) (conn.Answer, error) {
	ask, err := mcpwire.Elicitation(p, askFrom(from, wire.AskFromElicitation))
	if err != nil {
		return conn.Answer{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	ask.Server, ask.ServerName = a.server, a.name
	_, settle := onBehalf(ctx, &ask)
	ans, err := a.b.Ask(ctx, ask)
	settle(err == nil && ans.TimedOut)
	if err != nil {
		return a.unanswered(ctx, from, err)
	}
	return conn.Answer{Result: &mcp.ElicitResult{Action: string(ans.Action), Content: ans.Content}, Wait: ans.Wait}, nil
}

// declineReasonKey is the _meta key of the reason the relay declined a URL
// elicitation by itself.
const declineReasonKey = "switchboard/reason"

// unanswered is the answer to an elicitation the broker did not put to an
// answer: a URL it refused is declined, saying why (or, required by a
// -32042 error, refused to the connection); a schema it refused is
// invalid params; any other failure cancels.
func (a serverAsker) unanswered(ctx context.Context, from conn.Origin, err error) (conn.Answer, error) {
	var we *wire.Error
	switch {
	case ctx.Err() != nil:
		return conn.Answer{}, ctx.Err() // withdrawn: nobody waits for the answer
	case errors.As(err, &we) && from == conn.FromURLRequired:
		return conn.Answer{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: we.Message}
	case errors.As(err, &we) && we.Code == wire.CodeInvalidURL:
		a.log.Warn("url elicitation declined", "reason", we.Message)
		return conn.Answer{Result: &mcp.ElicitResult{Action: string(wire.ActionDecline), Meta: mcp.Meta{declineReasonKey: we.Message}}}, nil
	case errors.As(err, &we) && we.Code == wire.CodeBadRequest:
		return conn.Answer{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: we.Message}
	}
	a.log.Warn("elicitation not answered", "error", err)
	return conn.Answer{Result: &mcp.ElicitResult{Action: string(wire.ActionCancel)}}, nil
}

// askFrom is where an ask of origin from comes from, a server's request
// being request.
func askFrom(from conn.Origin, request wire.AskFrom) wire.AskFrom {
	switch from {
	case conn.FromInput:
		return wire.AskFromInput
	case conn.FromURLRequired:
		return wire.AskFromURLRequired
	}
	return request
}

// Complete implements [conn.Asker].
func (a serverAsker) Complete(elicitationID string) {
	a.b.Completed(a.server, mcpwire.ElicitationID(elicitationID))
}

// askSink is a session as its broker's sink.
type askSink struct{ s *Session }

// PutAsk implements [broker.Sink].
func (k askSink) PutAsk(a wire.Ask) bool { return k.s.putAsk(a) }

// RemoveAsk implements [broker.Sink].
func (k askSink) RemoveAsk(id string) { k.s.removeAsk(id) }

// putAsk shows a, or its new state, on every dashboard, with its server's
// asks; it reports false when a's server is gone or the session closed.
func (s *Session) putAsk(a wire.Ask) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.servers[a.Server]
	if s.closed || o == nil {
		return false
	}
	o.putAskLocked(a)
	return true
}

// removeAsk takes the ask id off every dashboard; an ask gone with its
// server is gone already.
func (s *Session) removeAsk(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.servers {
		if o.removeAskLocked(id) {
			return
		}
	}
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
