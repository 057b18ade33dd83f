package chat

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// progressEvery spaces the progress shown on a card.
const progressEvery = 100 * time.Millisecond

// runTool runs one call of tool ref, after the person's approval when
// ask, and returns its result for the model; of is the request's offer
// (in code mode, what a program may call).
func (rn *run) runTool(ctx context.Context, tr *toolRun, call llm.ToolCall, ref wire.ToolRef, of offer, ask, images bool) llm.Part {
	if ask {
		switch a := rn.awaitApproval(ctx, tr); a {
		case wire.ApproveDeny:
			rn.editTool(tr.part, func(c *wire.ChatToolCall) { c.State, c.Error = wire.ToolDenied, "Denied." })
			return refused(call.ID, "The person denied this call.")
		case "":
			return rn.toolEnded(ctx, tr, call.ID)
		case wire.ApproveAlways:
			rn.allowAlways(ref)
		}
		rn.editTool(tr.part, func(c *wire.ChatToolCall) { c.State = wire.ToolRunning })
	}
	if ref.Server == "" {
		return rn.runCode(ctx, tr, call, ref, of, images)
	}
	o, ok := rn.r.session(rn.user).Server(ref.Server)
	if !ok {
		rn.editTool(tr.part, func(c *wire.ChatToolCall) { c.State, c.Error = wire.ToolFailed, "The server was removed." })
		return refused(call.ID, "The tool's server was removed.")
	}
	var last atomic.Int64 // when the card last showed progress, in Unix nanoseconds
	caller := session.Caller{
		Agent: &session.Agent{Name: "Chat: " + rn.chat.Title, Label: call.ID, Chat: rn.chat.ID, Allowed: func() bool { return true }},
		Progress: func(p *mcp.ProgressNotificationParams) {
			now, prev := time.Now().UnixNano(), last.Load()
			if now-prev < int64(progressEvery) || !last.CompareAndSwap(prev, now) {
				return
			}
			rn.editTool(tr.part, func(c *wire.ChatToolCall) {
				c.Progress = &wire.Progress{Progress: p.Progress, Total: p.Total, Message: wire.Sanitize(p.Message, 200)}
			})
		},
	}
	args := call.Arguments
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	res, err := o.CallTool(ctx, caller, &mcp.CallToolParams{Name: ref.Tool, Arguments: args})
	var shown *wire.CallToolResult
	if err == nil {
		shown, err = o.ToolResult(ref.Tool, res)
	}
	if err != nil {
		if ctx.Err() != nil {
			return rn.toolEnded(ctx, tr, call.ID)
		}
		msg := callError(err)
		rn.editTool(tr.part, func(c *wire.ChatToolCall) { c.State, c.Error, c.Progress = wire.ToolFailed, msg, nil })
		return refused(call.ID, "The call failed: "+msg)
	}
	part, cut := forModel(call.ID, shown, images)
	rn.editTool(tr.part, func(c *wire.ChatToolCall) {
		c.State, c.Result, c.Cut, c.Progress = wire.ToolDone, forCard(shown), cut, nil
	})
	return part
}

// awaitApproval waits for the person's answer to a call waiting for
// approval; "" when the call or the turn ended first.
func (rn *run) awaitApproval(ctx context.Context, tr *toolRun) wire.Approval {
	select {
	case a := <-tr.approve:
		return a
	case <-ctx.Done():
		return ""
	}
}

// toolEnded shows a call cut short by a Cancel or a Stop, and tells the
// model of a Cancel (a stopped turn asks the model nothing more).
func (rn *run) toolEnded(ctx context.Context, tr *toolRun, id string) llm.Part {
	rn.editTool(tr.part, func(c *wire.ChatToolCall) { c.State, c.Progress = wire.ToolCancelled, nil })
	why := "The call was stopped."
	if errors.Is(context.Cause(ctx), errToolCancelled) {
		why = "The person cancelled this call."
	}
	return refused(id, why)
}

// allowAlways lets the conversation run ref without asking from now on.
func (rn *run) allowAlways(ref wire.ToolRef) {
	rn.mu.Lock()
	if !slices.Contains(rn.chat.Always, ref) {
		rn.chat.Always = append(slices.Clone(rn.chat.Always), ref)
	}
	rn.mu.Unlock()
	ctx, done := storeCtx()
	defer done()
	rn.r.edit.Lock()
	defer rn.r.edit.Unlock()
	chat, err := rn.r.cfg.Store.Chat(ctx, rn.user, rn.chat.ID)
	if err != nil || slices.Contains(chat.Always, ref) {
		return
	}
	chat.Always, chat.Running = append(chat.Always, ref), true
	if err := rn.r.putChatLocked(ctx, rn.user, chat); err != nil {
		rn.r.log.Error("keep an Always", "user", rn.user, "chat", chat.ID, "err", err)
	}
}

// always says whether the person chose Always for ref in this conversation.
func (rn *run) always(ref wire.ToolRef) bool {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return slices.Contains(rn.chat.Always, ref)
}

// callError is a failed call's error as the card and the model read it.
func callError(err error) string {
	if errors.Is(err, session.ErrUnanswered) {
		return err.Error()
	}
	if we, ok := mcpwire.Error(err); ok {
		return we.Message
	}
	return "the call failed; see the relay log"
}

// forCard is a result as the card keeps it: whole when it is small enough
// for the state, else its text cut.
func forCard(res *wire.CallToolResult) *wire.CallToolResult {
	if b, err := json.Marshal(res); err == nil && len(b) <= wire.MaxCallResultBytes {
		return res
	}
	text, _ := resultText(res, false)
	return &wire.CallToolResult{IsError: res.IsError, Content: []wire.Content{{Type: wire.ContentText,
		Text: cut(text, wire.MaxCallResultBytes/2) + "\n[The whole result is too large to keep here.]"}}}
}

// forModel is a tool result as the model gets it: its text (structured
// content as JSON when no text says it), its images when the model takes
// images, cut to wire.MaxChatToolResult with a notice.
func forModel(id string, res *wire.CallToolResult, images bool) (llm.Part, bool) {
	text, pics := resultText(res, images)
	cutIt := len(text) > wire.MaxChatToolResult
	if cutIt {
		text = cut(text, wire.MaxChatToolResult) + fmt.Sprintf("\n[Cut: the result is %d bytes; only the first %d are shown.]", len(text), wire.MaxChatToolResult)
	}
	parts := []llm.Part{llm.TextPart(text)}
	parts = append(parts, pics...)
	return llm.ToolResultPart(llm.ToolResult{CallID: id, Parts: parts, IsError: res.IsError}), cutIt
}

// resultText is a result's content as text, and its images as parts when
// images are wanted.
func resultText(res *wire.CallToolResult, images bool) (string, []llm.Part) {
	var b strings.Builder
	var pics []llm.Part
	line := func(s string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	hasText := false
	for _, c := range res.Content {
		switch c.Type {
		case wire.ContentText:
			line(c.Text)
			hasText = true
		case wire.ContentImage:
			data, err := base64.StdEncoding.DecodeString(c.Data)
			if images && err == nil {
				pics = append(pics, llm.ImagePart(c.MIMEType, data))
				continue
			}
			line(fmt.Sprintf("[An image (%s) the model is not shown.]", c.MIMEType))
		case wire.ContentAudio:
			line(fmt.Sprintf("[A sound (%s) the model is not given.]", c.MIMEType))
		case wire.ContentResourceLink:
			line(fmt.Sprintf("[Resource link: %s %s]", c.URI, c.Name))
		case wire.ContentResource:
			line(embeddedText(c.Resource))
		}
	}
	if !hasText && len(res.StructuredContent) > 0 {
		line(string(res.StructuredContent))
	}
	if b.Len() == 0 && len(pics) == 0 {
		b.WriteString("[The tool returned nothing.]")
	}
	return b.String(), pics
}

// embeddedText is an embedded resource as text.
func embeddedText(raw json.RawMessage) string {
	var r struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType"`
		Text     string `json:"text"`
		Blob     string `json:"blob"`
	}
	json.Unmarshal(raw, &r) // an unreadable resource is shown by its URI, empty
	if r.Text != "" {
		return fmt.Sprintf("[Resource %s]\n%s", r.URI, r.Text)
	}
	return fmt.Sprintf("[Resource %s (%s), not text]", r.URI, r.MIMEType)
}

// cut is s cut to at most n bytes, at a rune's start.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
