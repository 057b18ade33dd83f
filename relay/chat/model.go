package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// systemPrompt tells the model where it is.
const systemPrompt = "You are the assistant in the person's Switchboard dashboard. " +
	"You may use the tools of the person's MCP servers; a tool's name starts with its server's id. " +
	"When a tool needs the person (a form, a link to open), the person answers in the dashboard and you receive only the tool's result."

// Retries of a busy model.
const (
	maxBusyRetries = 2
	// maxBusyWait caps the wait before a retry; a model that asks for more
	// fails the turn with its message.
	maxBusyWait = 20 * time.Second
	// defaultBusyWait is the wait when the model did not say.
	defaultBusyWait = 2 * time.Second
)

// answer is one answer of the model: its text and its tool calls.
type answer struct {
	text  string
	calls []llm.ToolCall // with the ids the turn gave them
	cards []int          // the part of each call's card in the turn
}

// message is the answer as the assistant's message of the conversation.
func (a answer) message() llm.Message {
	m := llm.Message{Role: llm.Assistant}
	if a.text != "" {
		m.Parts = append(m.Parts, llm.TextPart(a.text))
	}
	for _, c := range a.calls {
		m.Parts = append(m.Parts, llm.ToolCallPart(c))
	}
	return m
}

// ask streams the model's answer to req into the turn, retrying a busy
// model that said nothing yet.
func (rn *run) ask(model llm.Model, req *llm.Request, o offer) (answer, error) {
	for attempt := 0; ; attempt++ {
		a, said, err := rn.stream(model, req, o)
		wait, busy := busyWait(err)
		if err == nil || said || !busy || attempt == maxBusyRetries {
			return a, err
		}
		rn.notice(fmt.Sprintf("The model is busy; trying again in %s.", wait.Round(time.Second)))
		select {
		case <-time.After(wait):
		case <-rn.ctx.Done():
			return answer{}, context.Cause(rn.ctx)
		}
	}
}

// busyWait says whether err is a busy model's refusal worth a retry, and
// how long to wait first.
func busyWait(err error) (time.Duration, bool) {
	var le *llm.Error
	if !errors.As(err, &le) {
		return 0, false
	}
	switch le.Status {
	case 429, 503, 529:
	default:
		return 0, false
	}
	switch {
	case le.RetryAfter > maxBusyWait:
		return 0, false
	case le.RetryAfter > 0:
		return le.RetryAfter, true
	}
	return defaultBusyWait, true
}

// stream reads one answer of the model: its text and reasoning go into the
// turn as they come, and each tool call as a card streaming its arguments
// (see streamingCall). said reports whether the model said anything.
func (rn *run) stream(model llm.Model, req *llm.Request, o offer) (a answer, said bool, err error) {
	var calls []*streamingCall
	byIndex := map[int]*streamingCall{}
	defer func() {
		if err != nil {
			for _, c := range calls {
				c.cut(rn)
			}
		}
	}()
	var text strings.Builder
	var usage llm.Usage
	for ev, err := range model.Stream(rn.ctx, req) {
		if err != nil {
			if cause := context.Cause(rn.ctx); cause != nil {
				err = cause
			}
			rn.addUsage(usage)
			return answer{}, said, err
		}
		switch ev.Type {
		case llm.EventText, llm.EventReasoning:
			if ev.Text == "" {
				continue
			}
			rn.firstOutput()
			said = true
			kind := wire.PartText
			if ev.Type == llm.EventReasoning {
				kind = wire.PartReasoning
			} else {
				text.WriteString(ev.Text)
			}
			rn.appendText(kind, ev.Text)
		case llm.EventToolCall:
			rn.firstOutput()
			said = true
			c := rn.startCall(ev.Name, o)
			calls = append(calls, c)
			byIndex[ev.Index] = c
		case llm.EventToolArgs:
			if c := byIndex[ev.Index]; c != nil {
				c.write(rn, ev.Text)
			}
		case llm.EventUsage:
			usage = ev.Usage
		}
	}
	rn.addUsage(usage)
	a.text = text.String()
	for _, c := range calls {
		c.end()
		a.calls = append(a.calls, llm.ToolCall{ID: c.id, Name: c.name, Arguments: []byte(c.args.String())})
		a.cards = append(a.cards, c.part)
	}
	return a, said, nil
}

// streamingCall is a tool call the model is writing. Its card shows in the
// turn from the call's first event, in state streaming, with the
// arguments so far (at most every partialEvery, the last of them at most
// partialEvery after they came, and at most MaxPartialArguments of them),
// so that an App view of the tool can show the call as it forms; runTools
// then turns the card into the call.
type streamingCall struct {
	id, name string
	part     int // the card's part in the turn

	mu    sync.Mutex
	args  strings.Builder
	shown time.Time   // when the card last showed the arguments
	later *time.Timer // shows the arguments that came since, or nil
	ended bool        // the model's answer ended: the card is no longer this one's
}

// partialEvery is how often a streaming card shows its arguments.
const partialEvery = 100 * time.Millisecond

// startCall shows the card of a call of the tool the model names.
func (rn *run) startCall(name string, o offer) *streamingCall {
	c := &streamingCall{id: newID("call"), name: name}
	card := &wire.ChatToolCall{ID: c.id, Name: name, State: wire.ToolStreaming}
	if ref, ok := o.refs[name]; ok {
		card.Server, card.Tool = ref.Server, ref.Tool
	}
	c.part = rn.addPart(wire.ChatPart{Kind: wire.PartTool, Tool: card})
	return c
}

// write takes a piece of the call's arguments: the card shows them now,
// or partialEvery after it last did, whether or not more come by then
// (a model may pause in the middle of a call).
func (c *streamingCall) write(rn *run, piece string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.args.WriteString(piece)
	if c.later != nil || c.args.Len() > wire.MaxPartialArguments {
		return
	}
	if wait := partialEvery - time.Since(c.shown); wait > 0 {
		c.later = time.AfterFunc(wait, func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if !c.ended {
				c.later = nil
				c.show(rn)
			}
		})
		return
	}
	c.show(rn)
}

// show puts the arguments so far on the card; c.mu is held.
func (c *streamingCall) show(rn *run) {
	c.shown = time.Now()
	partial := c.args.String()
	rn.editTool(c.part, func(t *wire.ChatToolCall) { t.PartialArguments = partial })
}

// end stops showing the arguments: the model's answer ended.
func (c *streamingCall) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	if c.later != nil {
		c.later.Stop()
	}
}

// cut shows a call the model's answer stopped in the middle of as failed.
func (c *streamingCall) cut(rn *run) {
	c.end()
	rn.editTool(c.part, func(t *wire.ChatToolCall) {
		t.State, t.Error = wire.ToolFailed, "The model's answer stopped before this call was complete."
	})
}

// firstOutput notes the time to the model's first output.
func (rn *run) firstOutput() {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	if rn.firstAt == 0 {
		rn.firstAt = max(time.Since(rn.start), time.Millisecond)
	}
}

// addUsage counts one answer's tokens in the turn's.
func (rn *run) addUsage(u llm.Usage) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	rn.usage.In += u.InputTokens
	rn.usage.Out += u.OutputTokens
}
