package broker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/metrics"
	"github.com/switchboard-mcp/switchboard/shared/schema"
	"github.com/switchboard-mcp/switchboard/shared/urlsafe"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Defaults of [Config].
const (
	// DefaultTimeout is how long an ask waits for a person: just under the
	// 60-second request timeout common to MCP server SDKs, so that the
	// server gets the relay's cancel rather than a timeout of its own.
	DefaultTimeout = 55 * time.Second
	// DefaultWaitTimeout is how long an accepted URL ask waits for its
	// interaction to complete.
	DefaultWaitTimeout = 10 * time.Minute
	// DefaultMaxPending caps one user's pending and waiting asks.
	DefaultMaxPending = 32
	// maxRefusedShown caps the refused asks shown per server at a time, so
	// that a server sending bad URLs cannot crowd out anything else.
	maxRefusedShown = 3
	// DefaultRefusedFor is how long a refused ask stays shown, unless the
	// person dismisses it first.
	DefaultRefusedFor = 20 * time.Second
)

// maxRefusalRunes caps the explanation of a refused ask.
const maxRefusalRunes = 300

// idBytes is the number of random bytes in an ask id.
const idBytes = 8

// Config tunes a broker. Zero values pick the defaults.
type Config struct {
	Timeout     time.Duration // an unanswered ask is answered cancel after this
	WaitTimeout time.Duration // an accepted URL ask stops waiting after this
	MaxPending  int           // asks beyond this many are answered cancel at once
	RefusedFor  time.Duration // a refused ask is shown this long
	Logger      *slog.Logger  // nil discards
}

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.WaitTimeout <= 0 {
		c.WaitTimeout = DefaultWaitTimeout
	}
	if c.MaxPending <= 0 {
		c.MaxPending = DefaultMaxPending
	}
	if c.RefusedFor <= 0 {
		c.RefusedFor = DefaultRefusedFor
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Sink holds a user's asks as the dashboards see them: the user's session.
// The broker calls it with its lock held.
type Sink interface {
	// PutAsk adds ask a, or replaces the ask of the same id. It reports
	// false when it cannot show a, because its server is gone or the
	// session closed; the ask is then answered cancel.
	PutAsk(a wire.Ask) bool
	// RemoveAsk removes the ask id: it was answered, timed out or withdrawn.
	RemoveAsk(id string)
}

// Answer is how an ask was answered.
type Answer struct {
	Action  wire.Action    // wire.ActionAccept, ActionDecline or ActionCancel
	Content map[string]any // the values of an accepted form
	// Sampling is the message written for an accepted sampling ask.
	Sampling *wire.SamplingResult
	// Wait is set when a URL ask was accepted. It returns nil once the
	// interaction at the URL is complete (the server said so, or the person
	// did), or an error when the person dismissed it, it timed out or ctx
	// ended; the ask is shown as waiting until then. Call it exactly once.
	Wait func(ctx context.Context) error
	// TimedOut: nobody answered before the deadline (Action is cancel).
	TimedOut bool
}

// Errors that end the wait of an accepted URL ask.
var (
	ErrDismissed   = errors.New("the person stopped waiting for the URL to be completed")
	ErrWaitTimeout = errors.New("the URL was not completed in time")
)

// Broker holds the pending asks of one user.
type Broker struct {
	cfg  Config
	sink Sink
	log  *slog.Logger

	mu   sync.Mutex
	asks map[string]*entry
}

// entry is one ask the broker holds.
type entry struct {
	ask   wire.Ask
	form  *schema.Form            // the parsed schema of a form ask
	tools map[string]*schema.Form // a sampling ask's tools: their parsed input schemas

	// answered receives the winning answer; only the winner of settled sends.
	answered chan wire.AnswerAskArgs
	settled  bool // guarded by Broker.mu: the ask has its answer (or was withdrawn)
	// completed is set when the server reported the URL interaction
	// complete before the person accepted; guarded by Broker.mu.
	completed bool

	done     chan struct{} // closed when a waiting URL ask ends
	waitErr  error         // why it ended; nil when completed
	waitStop func() bool   // stops the wait timeout

	hide *time.Timer // takes a refused ask off the dashboards

	forward    Forward // a sampling ask's agent client (see forward.go); nil if none
	forwarding bool    // guarded by Broker.mu: forward is running
}

// New returns an empty broker that shows its asks through sink.
func New(sink Sink, cfg Config) *Broker {
	cfg = cfg.withDefaults()
	return &Broker{cfg: cfg, sink: sink, log: cfg.Logger, asks: map[string]*entry{}}
}

// Ask shows a to the user and waits for the first answer. The broker sets
// a's id, state, creation time and deadline; Server, ServerName, Kind, From,
// Message and either Schema or URL and ElicitationID are the caller's.
//
// An unanswered ask is answered cancel at its deadline, as is an ask beyond
// [Config.MaxPending] or one the sink cannot show; a sampling ask gets an
// error instead (see sampling.go). When ctx ends first the
// ask is withdrawn and Ask returns ctx's error. A URL that may not be opened
// is refused at once with a [wire.CodeInvalidURL] error (the connection
// declines), and shown as [wire.AskRefused], without the URL, for
// [Config.RefusedFor] or until dismissed. A form whose schema shared/schema
// does not accept is refused with a [wire.CodeBadRequest] error and not shown.
func (b *Broker) Ask(ctx context.Context, a wire.Ask) (Answer, error) {
	if a.Kind == wire.AskURL {
		if _, err := urlsafe.CheckOpenable(a.URL); err != nil {
			b.log.Warn("url ask refused", "server", a.Server, "error", err)
			b.refuse(a, err)
			return Answer{}, wire.NewError(wire.CodeInvalidURL, err.Error())
		}
	}
	e, err := newEntry(a)
	if err != nil {
		b.log.Warn("ask refused", "server", a.Server, "kind", a.Kind, "error", err)
		return Answer{}, err
	}
	e.setForward(ctx)
	if err := ctx.Err(); err != nil {
		return Answer{}, err
	}
	if !b.deliver(e) {
		if a.Kind == wire.AskSampling {
			return Answer{}, errNotShown
		}
		return Answer{Action: wire.ActionCancel}, nil
	}
	metrics.Ask(string(a.Kind), metrics.AskRaised)
	deadline := time.NewTimer(b.cfg.Timeout)
	defer deadline.Stop()
	select {
	case args := <-e.answered:
		metrics.Ask(string(a.Kind), metrics.AskAnswered)
		return b.answer(e, args), nil
	case <-deadline.C:
		if b.withdraw(e) {
			metrics.Ask(string(a.Kind), metrics.AskTimedOut)
			if a.Kind == wire.AskSampling {
				b.log.Info("sampling ask timed out", "server", a.Server, "ask", e.ask.ID)
				return Answer{}, errNoAnswerInTime
			}
			b.log.Info("ask timed out: answered cancel", "server", a.Server, "ask", e.ask.ID)
			return Answer{Action: wire.ActionCancel, TimedOut: true}, nil
		}
	case <-ctx.Done():
		if b.withdraw(e) {
			return Answer{}, ctx.Err()
		}
	}
	// An answer won the race; its sender is about to deliver it.
	metrics.Ask(string(a.Kind), metrics.AskAnswered)
	return b.answer(e, <-e.answered), nil
}

// newEntry checks a and prepares what answering it needs.
func newEntry(a wire.Ask) (*entry, error) {
	e := &entry{ask: a, answered: make(chan wire.AnswerAskArgs, 1)}
	switch a.Kind {
	case wire.AskForm:
		form, err := schema.Parse(a.Schema)
		if err != nil {
			return nil, wire.NewError(wire.CodeBadRequest, "the requested schema is not supported: "+err.Error())
		}
		e.form = form
	case wire.AskURL:
		e.done = make(chan struct{})
	case wire.AskSampling:
		if a.Sampling == nil {
			return nil, wire.NewError(wire.CodeBadRequest, "a sampling ask needs its request")
		}
		e.tools = samplingTools(a.Sampling)
	default:
		return nil, wire.NewError(wire.CodeBadRequest, fmt.Sprintf("unknown kind of ask %q", a.Kind))
	}
	return e, nil
}

// deliver registers e and shows it; it reports false when e is over the cap
// or the sink refused it.
func (b *Broker) deliver(e *entry) bool {
	now := time.Now()
	e.ask.ID = newID()
	e.ask.State = wire.AskPending
	e.ask.Created = now
	e.ask.Deadline = now.Add(b.cfg.Timeout)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.countLocked(func(a wire.Ask) bool { return a.State != wire.AskRefused }) >= b.cfg.MaxPending {
		b.log.Warn("too many asks: answered cancel", "server", e.ask.Server, "max", b.cfg.MaxPending)
		return false
	}
	if !b.sink.PutAsk(e.ask) {
		return false
	}
	b.asks[e.ask.ID] = e
	return true
}

// refuse shows the URL ask a, refused for why, as [wire.AskRefused]: with
// the reason and without the URL, settled from the start, until the person
// dismisses it or [Config.RefusedFor] passes. Refused asks do not count
// towards [Config.MaxPending]; beyond a few per server they are not shown.
func (b *Broker) refuse(a wire.Ask, why error) {
	now := time.Now()
	a.ID = newID()
	a.State = wire.AskRefused
	a.URL = ""
	a.Refusal = wire.Sanitize(why.Error(), maxRefusalRunes)
	a.Created = now
	a.Deadline = now.Add(b.cfg.RefusedFor)
	e := &entry{ask: a, settled: true}
	b.mu.Lock()
	defer b.mu.Unlock()
	refused := func(x wire.Ask) bool { return x.State == wire.AskRefused && x.Server == a.Server }
	if b.countLocked(refused) >= maxRefusedShown || !b.sink.PutAsk(e.ask) {
		return
	}
	b.asks[e.ask.ID] = e
	e.hide = time.AfterFunc(b.cfg.RefusedFor, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.removeLocked(e)
	})
}

// countLocked counts the asks held that match.
func (b *Broker) countLocked(match func(wire.Ask) bool) int {
	n := 0
	for _, e := range b.asks {
		if match(e.ask) {
			n++
		}
	}
	return n
}

// withdraw settles e without an answer and removes it; it reports false when
// an answer settled it first.
func (b *Broker) withdraw(e *entry) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e.settled {
		return false
	}
	e.settled = true
	b.removeLocked(e)
	return true
}

// answer turns the winning answer into Ask's result.
func (b *Broker) answer(e *entry, args wire.AnswerAskArgs) Answer {
	ans := Answer{Action: args.Action, Content: args.Content, Sampling: args.Sampling}
	if e.ask.Kind == wire.AskURL && args.Action == wire.ActionAccept {
		ans.Wait = func(ctx context.Context) error { return b.wait(ctx, e) }
	}
	return ans
}

// wait blocks until the waiting URL ask e ends.
func (b *Broker) wait(ctx context.Context, e *entry) error {
	select {
	case <-e.done:
	case <-ctx.Done():
		b.finish(e, ctx.Err())
		<-e.done
	}
	return e.waitErr
}

// settleLocked records args as e's answer: an accepted URL ask starts
// waiting, anything else is removed.
func (b *Broker) settleLocked(e *entry, args wire.AnswerAskArgs) {
	e.settled = true
	if e.ask.Kind == wire.AskURL && args.Action == wire.ActionAccept {
		b.startWaitingLocked(e)
	} else {
		b.removeLocked(e)
	}
	e.answered <- args // buffered, and only the winner sends
}

// startWaitingLocked shows e as waiting for its URL to be completed.
func (b *Broker) startWaitingLocked(e *entry) {
	if e.completed {
		b.finishLocked(e, nil)
		return
	}
	e.ask.State = wire.AskWaiting
	e.ask.Deadline = time.Now().Add(b.cfg.WaitTimeout)
	b.sink.PutAsk(e.ask)
	t := time.AfterFunc(b.cfg.WaitTimeout, func() { b.finish(e, ErrWaitTimeout) })
	e.waitStop = t.Stop
}

// finish ends the wait of e with err (nil: completed).
func (b *Broker) finish(e *entry, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.finishLocked(e, err)
}

func (b *Broker) finishLocked(e *entry, err error) {
	select {
	case <-e.done:
		return // ended already
	default:
	}
	if e.waitStop != nil {
		e.waitStop()
	}
	e.waitErr = err
	close(e.done)
	b.removeLocked(e)
}

// removeLocked forgets e and takes it off the dashboards.
func (b *Broker) removeLocked(e *entry) {
	if b.asks[e.ask.ID] != e {
		return
	}
	delete(b.asks, e.ask.ID)
	b.sink.RemoveAsk(e.ask.ID)
}

func newID() string {
	b := make([]byte, idBytes)
	rand.Read(b)
	return hex.EncodeToString(b)
}
