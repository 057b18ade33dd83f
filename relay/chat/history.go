package chat

import (
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// history is the conversation as the model is given it: the turns before
// this one, then the person's message of this one.
func (rn *run) history() ([]llm.Message, error) {
	ctx, done := storeCtx()
	defer done()
	turns, err := rn.r.cfg.Store.Turns(ctx, rn.user, rn.chat.ID)
	if err != nil {
		return nil, err
	}
	images := rn.r.cfg.Models.Images(rn.chat.Model)
	var msgs []llm.Message
	for _, t := range turns {
		if t.N >= rn.turn.N {
			break
		}
		msgs = append(msgs, turnMessages(t, images)...)
	}
	rn.mu.Lock()
	defer rn.mu.Unlock()
	msg := userMessage(rn.turn)
	if p, ok := appContextPart(rn.chat.AppContext); ok {
		msg.Parts = append([]llm.Part{p}, msg.Parts...)
	}
	return append(msgs, msg), nil
}

// userMessage is the person's message of t with what it attached.
func userMessage(t wire.ChatTurn) llm.Message {
	var b strings.Builder
	for _, a := range t.Attachments {
		switch {
		case a.Error != "":
			continue
		case a.Kind == wire.AttachPrompt:
			fmt.Fprintf(&b, "[Prompt %q of server %s]\n%s\n\n", a.Name, a.Server, a.Text)
		default:
			fmt.Fprintf(&b, "[Resource %s of server %s]\n%s\n\n", a.URI, a.Server, a.Text)
		}
	}
	b.WriteString(t.Text)
	return llm.Message{Role: llm.User, Parts: []llm.Part{llm.TextPart(b.String())}}
}

// turnMessages are a finished turn's messages: the person's, then the
// model's answers, each answer's tool calls followed by their results. A
// text after a tool call starts the next answer. Reasoning and notices are
// not given back.
func turnMessages(t wire.ChatTurn, images bool) []llm.Message {
	msgs := []llm.Message{userMessage(t)}
	var answer, results []llm.Part
	flush := func() {
		if len(answer) > 0 {
			msgs = append(msgs, llm.Message{Role: llm.Assistant, Parts: answer})
		}
		if len(results) > 0 {
			msgs = append(msgs, llm.Message{Role: llm.User, Parts: results})
		}
		answer, results = nil, nil
	}
	for _, p := range t.Parts {
		switch {
		case p.Kind == wire.PartText && p.Text != "":
			if len(results) > 0 {
				flush()
			}
			answer = append(answer, llm.TextPart(p.Text))
		case p.Kind == wire.PartTool && p.Tool != nil:
			c := p.Tool
			answer = append(answer, llm.ToolCallPart(llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}))
			results = append(results, pastResult(c, images))
		}
	}
	flush()
	return msgs
}

// pastResult is what the model was given for a finished card.
func pastResult(c *wire.ChatToolCall, images bool) llm.Part {
	switch {
	case c.State == wire.ToolDone && c.Result != nil:
		p, _ := forModel(c.ID, c.Result, images)
		return p
	case c.State == wire.ToolDenied:
		return refused(c.ID, "The person denied this call.")
	case c.Error != "":
		return refused(c.ID, c.Error)
	}
	return refused(c.ID, "The call was stopped.")
}
