package conn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Elicitation. With an [Asker] in its [Config], a connection advertises the
// elicitation modes of [Config.Modes] and turns what a server asks a person
// into a [wire.Ask] for the asker:
//   - elicitation/create requests (AskFromElicitation), answered when the
//     asker answers, and withdrawn (the asker's context ends) when the
//     server cancels its request or the session ends;
//   - input requests of the 2026-07-28 protocol, which the go-sdk fulfils
//     through the same handler (AskFromInput);
//   - the URL elicitations of a -32042 error (AskFromURLRequired), after
//     which the operation is retried (see urlrequired.go).
//
// A request in a mode not advertised gets invalid params (-32602), as does
// a schema over maxSchemaBytes or one the asker refuses; a URL the asker
// refuses is declined, with the reason in the result's _meta. Messages are
// cut at maxAskMessageRunes with a note saying so. An accepted URL ask stays
// waiting for notifications/elicitation/complete (routed to
// [Asker.Complete]) as long as its session lives.
//
// The go-sdk decodes a requested schema into a map, which loses the order
// of its properties; the ask's schema has them in the order the server sent
// (see relay/readalong), or in key order when that was not seen.

// AskModes are the kinds of asks a connection advertises. An elicitation
// in another mode is answered with the spec's invalid-params error
// (-32602); without Sampling the go-sdk refuses sampling requests.
type AskModes struct {
	Form     bool // fill in a form
	URL      bool // consent to open a URL
	Sampling bool // write a message (sampling/createMessage, with tools)
}

// AllAskModes advertises both elicitation modes and sampling.
var AllAskModes = AskModes{Form: true, URL: true, Sampling: true}

// allows reports whether mode (wire.AskForm or wire.AskURL) is advertised.
func (m AskModes) allows(mode wire.AskKind) bool {
	return (mode == wire.AskForm && m.Form) || (mode == wire.AskURL && m.URL)
}

// Answer is the answer to an ask.
type Answer struct {
	Action  wire.Action    // wire.ActionAccept, ActionDecline or ActionCancel
	Content map[string]any // the values of an accepted form
	// Sampling is the message written for an accepted sampling ask.
	Sampling *wire.SamplingResult
	// Wait, when a URL ask was accepted, returns nil once the interaction at
	// the URL is complete, or an error when it was abandoned or ctx ended.
	// Nil means complete already.
	Wait func(ctx context.Context) error
	// TimedOut: nobody answered before the deadline (Action is cancel).
	TimedOut bool
}

// Asker puts a server's requests for a person before that person: the
// user's dashboards (relay/broker, through the session), or a program that
// answers by itself ([AcceptDefaults]).
type Asker interface {
	// Ask shows a and returns its answer. The connection fills in Server,
	// ServerName, Kind, From, Message (sanitized and capped) and either
	// Schema or URL and ElicitationID. Ask returns ctx's error when ctx ends
	// first: the request was withdrawn. A [*wire.Error] of code
	// [wire.CodeInvalidURL] refuses a URL (the connection declines, saying
	// why), one of code [wire.CodeBadRequest] a schema (the server gets
	// invalid params).
	Ask(ctx context.Context, a wire.Ask) (Answer, error)
	// Complete reports the server's notifications/elicitation/complete.
	Complete(elicitationID string)
}

// Caps on what a server can put in an ask.
const (
	maxAskMessageRunes = 4000
	// maxURLRequired caps the URL elicitations of one -32042 error.
	maxURLRequired = 8
	// maxURLRequiredRounds caps how often one operation is retried after
	// URL elicitations it required were completed.
	maxURLRequiredRounds = 3
)

// declineReasonKey is the _meta key of the reason the relay declined a URL
// elicitation by itself.
const declineReasonKey = "switchboard/reason"

// elicits reports whether c advertises elicitation at all.
func (c *Conn) elicits() bool {
	return c.cfg.Asker != nil && (c.cfg.Modes.Form || c.cfg.Modes.URL)
}

// capabilities are the client capabilities c advertises: elicitation in
// the configured modes, sampling with tools when configured, nothing else.
func (c *Conn) capabilities() *mcp.ClientCapabilities {
	caps := &mcp.ClientCapabilities{RootsV2: rootsCapability()}
	if c.samples() {
		caps.Sampling = &mcp.SamplingCapabilities{Tools: &mcp.SamplingToolsCapabilities{}}
	}
	if !c.elicits() {
		return caps
	}
	caps.Elicitation = &mcp.ElicitationCapabilities{}
	if c.cfg.Modes.Form {
		caps.Elicitation.Form = &mcp.FormElicitationCapabilities{}
	}
	if c.cfg.Modes.URL {
		caps.Elicitation.URL = &mcp.URLElicitationCapabilities{}
	}
	return caps
}

// elicitationHandler is the go-sdk's ElicitationHandler of c: nil when c
// does not elicit, so that the go-sdk refuses elicitation requests.
func (c *Conn) elicitationHandler() func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if !c.elicits() {
		return nil
	}
	return c.elicit
}

// elicitationCompleteHandler routes notifications/elicitation/complete to
// the asker, when c advertises URL mode.
func (c *Conn) elicitationCompleteHandler() func(context.Context, *mcp.ElicitationCompleteNotificationRequest) {
	if !c.elicits() || !c.cfg.Modes.URL {
		return nil
	}
	return func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
		if req.Params != nil && req.Params.ElicitationID != "" {
			c.cfg.Asker.Complete(elicitationID(req.Params.ElicitationID))
		}
	}
}

// elicit answers an elicitation/create request, or an input request of the
// 2026-07-28 protocol, by asking the asker. The go-sdk has checked the
// request's shape; the relay checks the mode, the schema (shared/schema is
// the authority on forms) and the URL.
func (c *Conn) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p := req.Params
	mode := elicitMode(p)
	if !c.cfg.Modes.allows(mode) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("elicitation mode %q is not supported", mode)}
	}
	a, err := c.newAsk(p, mode, askOrigin(ctx))
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	scope := c.scope(req.Session)
	ctx, stop := withScope(ctx, scope)
	defer stop()
	ans, err := c.askFor(ctx, p, a)
	if err != nil {
		return c.unanswered(ctx, err)
	}
	if ans.Wait != nil {
		// The ask waits for the URL's completion as long as the session
		// lives; the server has its answer now.
		go ans.Wait(scope)
	}
	return &mcp.ElicitResult{Action: string(ans.Action), Content: ans.Content}, nil
}

// unanswered is the reply to an elicitation the asker did not answer.
func (c *Conn) unanswered(ctx context.Context, err error) (*mcp.ElicitResult, error) {
	var we *wire.Error
	switch {
	case errors.As(err, &we) && we.Code == wire.CodeInvalidURL:
		c.log.Warn("url elicitation declined", "reason", we.Message)
		return &mcp.ElicitResult{Action: string(wire.ActionDecline), Meta: mcp.Meta{declineReasonKey: we.Message}}, nil
	case errors.As(err, &we) && we.Code == wire.CodeBadRequest:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: we.Message}
	case ctx.Err() != nil:
		return nil, ctx.Err() // withdrawn: nobody waits for the answer
	}
	c.log.Warn("elicitation not answered", "error", err)
	return &mcp.ElicitResult{Action: string(wire.ActionCancel)}, nil
}

// elicitMode is the request's mode; unset means form, as for the go-sdk's
// client.
func elicitMode(p *mcp.ElicitParams) wire.AskKind {
	if p.Mode == "" {
		return wire.AskForm
	}
	return wire.AskKind(p.Mode)
}

// newAsk turns a request in an advertised mode into an ask.
func (c *Conn) newAsk(p *mcp.ElicitParams, mode wire.AskKind, from wire.AskFrom) (wire.Ask, error) {
	a := wire.Ask{
		Server:     c.cfg.ID,
		ServerName: c.cfg.Name,
		Kind:       mode,
		From:       from,
		Message:    askMessage(p.Message),
	}
	if mode == wire.AskURL {
		a.URL = p.URL
		a.ElicitationID = elicitationID(p.ElicitationID)
		return a, nil
	}
	a.Schema = json.RawMessage(`{"type":"object"}`) // a form without fields: a confirmation
	if p.RequestedSchema != nil {
		raw, err := c.ra.Schemas.Ordered(p.RequestedSchema)
		if err != nil {
			return a, fmt.Errorf("requestedSchema: %w", err)
		}
		if len(raw) > maxSchemaBytes {
			return a, fmt.Errorf("the requested schema is over %d bytes", maxSchemaBytes)
		}
		a.Schema = raw
	}
	return a, nil
}

// askMessage makes a server's message safe to show, cut with a note when it
// is too long.
func askMessage(s string) string {
	out := text(s, maxAskMessageRunes)
	if n := utf8.RuneCountInString(s); n > maxAskMessageRunes && strings.HasSuffix(out, "…") {
		out += fmt.Sprintf("\n\n[The relay cut this message: the server sent %d characters.]", n)
	}
	return out
}

// elicitationID makes a server's elicitation id safe to show. Requests and
// completion notifications both pass through it, so they still match.
func elicitationID(s string) string { return line(s, maxKeyRunes) }

// scope returns the context that ends with the live session cs, or an ended
// one when cs is not (or no longer) the live session: an elicitation must
// not outlive its session, whose close waits for it.
func (c *Conn) scope(cs *mcp.ClientSession) context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live != nil && c.live.cs == cs {
		return c.live.ctx
	}
	return endedContext
}

// endedContext is a context that has ended.
var endedContext = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// withScope returns ctx, also ended when scope ends.
func withScope(ctx, scope context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(scope, func() { cancel(context.Cause(scope)) })
	return ctx, func() { stop(); cancel(nil) }
}

// inputLane marks the context of a tools/call, prompts/get or
// resources/read, whose input requests (2026-07-28) the go-sdk hands to the
// elicitation handler under it.
type inputLane struct{}

// askOrigin says whether an elicitation came as an input request.
func askOrigin(ctx context.Context) wire.AskFrom {
	if ctx.Value(inputLane{}) != nil {
		return wire.AskFromInput
	}
	return wire.AskFromElicitation
}
