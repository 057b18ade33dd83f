package chat

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// errNoViewCall is the answer to context from a view of no tool call of the
// conversation.
var errNoViewCall = wire.NewError(wire.CodeNotFound, "no such tool call in this conversation")

// setAppContext keeps what a tool call's App view gives the model
// (ui/update-model-context). The call's server and tool are the relay's
// record of it, not the page's word; a view's newer context replaces its
// older one, and an empty text clears it.
func (r *Room) setAppContext(ctx context.Context, user string, a wire.SetChatAppContextArgs) (any, error) {
	if len(a.Text) > wire.MaxAppContext || !utf8.ValidString(a.Text) {
		return nil, wire.NewError(wire.CodeBadRequest, fmt.Sprintf("a view's context must be UTF-8 text of at most %d KiB", wire.MaxAppContext>>10))
	}
	call, err := r.toolCallOf(ctx, user, a.Chat, a.Call)
	if err != nil {
		return nil, err
	}
	r.edit.Lock()
	defer r.edit.Unlock()
	c, err := r.chatOf(ctx, user, a.Chat)
	if err != nil {
		return nil, err
	}
	c.AppContext = slices.DeleteFunc(c.AppContext, func(e wire.ChatAppContext) bool { return e.Call == a.Call })
	if strings.TrimSpace(a.Text) != "" {
		c.AppContext = append(c.AppContext, wire.ChatAppContext{Call: a.Call, Server: call.Server, Tool: call.Tool, Text: a.Text, Updated: time.Now().UTC()})
		if over := len(c.AppContext) - wire.MaxAppContexts; over > 0 {
			c.AppContext = slices.Delete(c.AppContext, 0, over)
		}
	}
	return struct{}{}, r.putChatLocked(ctx, user, c)
}

// toolCallOf finds tool call id of the conversation: in its running turn,
// else in its stored turns.
func (r *Room) toolCallOf(ctx context.Context, user, chat, id string) (wire.ChatToolCall, error) {
	if rn := r.runOf(user, chat); rn != nil {
		rn.mu.Lock()
		call, ok := callIn(rn.turn, id)
		rn.mu.Unlock()
		if ok {
			return call, nil
		}
	}
	turns, err := r.cfg.Store.Turns(ctx, user, chat)
	if err != nil {
		return wire.ChatToolCall{}, errNoChat
	}
	for _, t := range turns {
		if call, ok := callIn(t, id); ok {
			return call, nil
		}
	}
	return wire.ChatToolCall{}, errNoViewCall
}

func callIn(t wire.ChatTurn, id string) (wire.ChatToolCall, bool) {
	for _, p := range t.Parts {
		if p.Tool != nil && p.Tool.ID == id && p.Tool.Server != "" {
			return *p.Tool, true
		}
	}
	return wire.ChatToolCall{}, false
}

// appContextPart is the views' context as the model reads it, before the
// person's message; none when no view gave any.
func appContextPart(ctxs []wire.ChatAppContext) (llm.Part, bool) {
	if len(ctxs) == 0 {
		return llm.Part{}, false
	}
	var b strings.Builder
	for _, c := range ctxs {
		fmt.Fprintf(&b, "[Context from the view of tool %q of server %s]\n%s\n\n", c.Tool, c.Server, c.Text)
	}
	return llm.TextPart(b.String()), true
}
