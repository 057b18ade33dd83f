package chat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/tracing"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// run is one running turn of a conversation. Its fields below mu change
// only under mu, which also orders the turn's changes in the state.
type run struct {
	r      *Room
	user   string
	chat   wire.Chat // the conversation as the turn began
	ctx    context.Context
	cancel context.CancelCauseFunc
	done   chan struct{}
	start  time.Time

	// begun is closed once the turn is stored and shown, or could not be
	// (unsaved, then set): the turn's loop asks the model meanwhile, but
	// stores nothing before.
	begun   chan struct{}
	unsaved bool

	mu      sync.Mutex
	turn    wire.ChatTurn
	shown   bool                // the turn is in the state: its changes are published
	tools   map[string]*toolRun // the tool calls of the turn, by id
	usage   wire.ChatUsage
	firstAt time.Duration // time to the model's first output; 0 before it
}

// Errors of a turn that cannot start.
var (
	errRunning    = wire.NewError(wire.CodeBadRequest, "a turn of this conversation is running: stop it first")
	errTooBusy    = wire.NewError(wire.CodeBadRequest, fmt.Sprintf("%d turns are running already: wait for one to end", maxRunningTurns))
	errNoModel    = wire.NewError(wire.CodeNotConfigured, "this conversation's model is no longer configured: pick another")
	errRoomClosed = wire.NewError(wire.CodeNotReady, "the relay is stopping")
)

// begin starts a turn of chat, the n-th, for text and attachments; with
// replace, the turns from the n-th on are dropped first (a retry).
//
// The turn's loop starts at once, so that the model is asked while the
// turn is stored: what the loop changes before the turn is shown is part
// of the turn when it is, and it stores nothing before begin is done.
func (r *Room) begin(user string, chat wire.Chat, n int, text string, atts []wire.ChatAttachment, replace bool) error {
	ctx, _ := tracing.Start(context.Background(), "chat turn") // ended by the turn's loop, or below
	ctx, cancel := context.WithCancelCause(ctx)
	rn := &run{r: r, user: user, chat: chat, ctx: ctx, cancel: cancel, done: make(chan struct{}), start: time.Now(),
		begun: make(chan struct{}), tools: map[string]*toolRun{}}
	if rn.chat.Title == "" {
		rn.chat.Title = titleOf(text)
	}
	rn.turn = wire.ChatTurn{ID: newID("turn"), Chat: chat.ID, N: n, Model: chat.Model, Text: text, Attachments: atts,
		Status: wire.TurnRunning, Started: rn.start.UTC()}
	first := cloneTurn(rn.turn)
	if err := r.claim(rn); err != nil {
		cancel(nil)
		trace.SpanFromContext(ctx).End()
		return err
	}
	go rn.loop()
	err := r.record(rn, first, replace)
	if err != nil {
		rn.unsaved = true
		cancel(err)
		r.release(rn)
	}
	close(rn.begun)
	return err
}

// record stores the first state of rn's turn and shows the conversation
// running with the turn as its latest, named after its first message.
func (r *Room) record(rn *run, first wire.ChatTurn, replace bool) error {
	ctx, done := storeCtx()
	defer done()
	if replace {
		if err := r.cfg.Store.DeleteTurnsFrom(ctx, rn.user, rn.chat.ID, first.N); err != nil {
			return wire.NewError(wire.CodeInternal, "could not replace the last turn")
		}
	}
	if err := r.cfg.Store.PutTurn(ctx, rn.user, first); err != nil {
		return wire.NewError(wire.CodeInternal, "could not save the message")
	}
	r.edit.Lock()
	defer r.edit.Unlock()
	chat, err := r.cfg.Store.Chat(ctx, rn.user, rn.chat.ID)
	if err != nil {
		return wire.NewError(wire.CodeNotFound, "no such conversation")
	}
	chat.Turns, chat.Running, chat.Updated = first.N+1, true, rn.start.UTC()
	if chat.Title == "" {
		chat.Title = rn.chat.Title
	}
	if err := r.storeChat(ctx, rn.user, chat); err != nil {
		return err
	}
	rn.mu.Lock()
	defer rn.mu.Unlock()
	rn.shown = true
	return r.showChat(rn.user, chat, rn.turnChange())
}

// stored waits for begin to end and says whether the turn was stored.
func (rn *run) stored() bool {
	<-rn.begun
	return !rn.unsaved
}

// claim registers rn as its conversation's running turn.
func (r *Room) claim(rn *run) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := convKey{rn.user, rn.chat.ID}
	switch {
	case r.closed:
		return errRoomClosed
	case r.running[key] != nil:
		return errRunning
	}
	mine := 0
	for k := range r.running {
		if k.user == rn.user {
			mine++
		}
	}
	if mine >= maxRunningTurns {
		return errTooBusy
	}
	r.running[key] = rn
	r.loops.Add(1)
	return nil
}

// release forgets rn as running.
func (r *Room) release(rn *run) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running[convKey{rn.user, rn.chat.ID}] == rn {
		delete(r.running, convKey{rn.user, rn.chat.ID})
	}
}

// loop runs the turn to its end.
func (rn *run) loop() {
	defer rn.r.loops.Done()
	defer close(rn.done)
	defer trace.SpanFromContext(rn.ctx).End()
	status, msg := rn.steps()
	rn.finish(status, msg)
}

// steps asks the model and runs its tool calls until it answers without
// one; it returns how the turn ends.
func (rn *run) steps() (wire.TurnStatus, string) {
	if err := rn.waitForServers(); err != nil {
		return rn.ended(err)
	}
	model, err := rn.r.cfg.Models.Model(rn.ctx, rn.user, rn.chat.Model)
	if err != nil {
		return wire.TurnFailed, errorText(err)
	}
	rn.resolveAttachments()
	msgs, err := rn.history()
	if err != nil {
		return wire.TurnFailed, "could not read the conversation"
	}
	images := rn.r.cfg.Models.Images(rn.chat.Model)
	for step := 0; ; step++ {
		if step == rn.r.cfg.MaxSteps {
			rn.notice(fmt.Sprintf("Stopped after %d steps: the model kept calling tools. Send a message to let it go on.", step))
			return wire.TurnStepLimit, ""
		}
		offer := rn.offer()
		answer, err := rn.ask(model, &llm.Request{System: systemPrompt, Messages: msgs, Tools: offer.tools}, offer)
		if err != nil {
			return rn.ended(err)
		}
		rn.save()
		if len(answer.calls) == 0 {
			return wire.TurnDone, ""
		}
		msgs = append(msgs, answer.message())
		if !rn.stored() { // no tool runs for a message that was not saved
			return rn.ended(context.Cause(rn.ctx))
		}
		results := rn.runTools(answer, offer, images)
		if err := context.Cause(rn.ctx); err != nil {
			return rn.ended(err)
		}
		msgs = append(msgs, llm.Message{Role: llm.User, Parts: results})
	}
}

// ended is how a turn that stopped on err ends.
func (rn *run) ended(err error) (wire.TurnStatus, string) {
	switch cause := context.Cause(rn.ctx); {
	case errors.Is(cause, errShutdown), errors.Is(cause, errLetGo):
		return wire.TurnInterrupted, cause.Error()
	case errors.Is(cause, errStopped):
		return wire.TurnStopped, ""
	}
	return wire.TurnFailed, errorText(err)
}

// finish records how the turn ended, stores it, and lets the conversation
// take its next turn.
func (rn *run) finish(status wire.TurnStatus, msg string) {
	if !rn.stored() {
		return
	}
	rn.mu.Lock()
	rn.turn.Status, rn.turn.Error = status, wire.Sanitize(msg, wire.MaxErrorMessage)
	settleCards(&rn.turn)
	rn.turn.Waiting, rn.turn.Usage = nil, rn.usage
	rn.turn.FirstToken, rn.turn.Duration = rn.firstAt.Milliseconds(), time.Since(rn.start).Milliseconds()
	rn.mu.Unlock()
	turn := rn.save()
	rn.r.release(rn)
	ctx, done := storeCtx()
	defer done()
	rn.r.edit.Lock()
	defer rn.r.edit.Unlock()
	chat, err := rn.r.cfg.Store.Chat(ctx, rn.user, rn.chat.ID)
	if err != nil { // deleted meanwhile
		return
	}
	chat.Running, chat.Updated = false, time.Now().UTC()
	// A full turn, not an end change: cards may have been cancelled above.
	turnChange := change(wire.KindChatTurn, chat.ID, turn)
	if err := rn.r.putChatLocked(ctx, rn.user, chat, turnChange); err != nil {
		rn.r.log.Error("end a chat turn", "user", rn.user, "chat", chat.ID, "err", err)
	}
}

// settleCards shows the cards an ended turn left waiting or running (a
// stop, a relay that stopped) as cancelled.
func settleCards(t *wire.ChatTurn) {
	if t.Status == wire.TurnRunning {
		return
	}
	for i, p := range t.Parts {
		if c := p.Tool; c != nil && (c.State == wire.ToolRunning || c.State == wire.ToolApproval || c.State == wire.ToolStreaming) {
			settled := *c
			settled.State, settled.Progress = wire.ToolCancelled, nil
			t.Parts[i].Tool = &settled
		}
	}
}

// save stores the turn as it is, at every complete event, and returns
// what it stored.
func (rn *run) save() wire.ChatTurn {
	if !rn.stored() {
		return wire.ChatTurn{}
	}
	rn.mu.Lock()
	turn := cloneTurn(rn.turn)
	rn.mu.Unlock()
	ctx, done := storeCtx()
	defer done()
	if err := rn.r.cfg.Store.PutTurn(ctx, rn.user, turn); err != nil {
		rn.r.log.Error("save a chat turn", "user", rn.user, "chat", rn.chat.ID, "err", err)
	}
	return turn
}

// newID is a random id with a prefix.
func newID(prefix string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return prefix + "_" + hex.EncodeToString(b)
}

// titleOf is a conversation's title from its first message.
func titleOf(text string) string {
	t := wire.Sanitize(text, 60)
	if t == "" {
		return "New conversation"
	}
	return t
}

// errorText is err as a person reads it.
func errorText(err error) string {
	var le *llm.Error
	var we *wire.Error
	switch {
	case errors.As(err, &le):
		return "The model failed: " + le.Message
	case errors.As(err, &we):
		return we.Message
	}
	return err.Error()
}

// cloneTurn copies t deeply enough to hand it to another goroutine.
func cloneTurn(t wire.ChatTurn) wire.ChatTurn {
	t.Parts = append([]wire.ChatPart(nil), t.Parts...)
	for i, p := range t.Parts {
		if p.Tool != nil {
			tc := *p.Tool
			t.Parts[i].Tool = &tc
		}
	}
	t.Attachments = append([]wire.ChatAttachment(nil), t.Attachments...)
	return t
}
