package web

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// toolStateWords are what a tool card says of its call's state.
var toolStateWords = map[wire.ToolCallState]string{
	wire.ToolStreaming: "Writing the call…",
	wire.ToolApproval:  "Waiting for your approval",
	wire.ToolRunning:   "Running…",
	wire.ToolDone:      "Done",
	wire.ToolFailed:    "Failed",
	wire.ToolDenied:    "Denied",
	wire.ToolCancelled: "Cancelled",
}

// maxArgsPreview is the length of the arguments shown beside their fold, in characters.
const maxArgsPreview = 80

// ChatToolCard is a tool call the model made, in the flow of its turn: the
// tool and its server, the arguments folded, progress and Cancel while it
// runs, Run / Deny / Always while it waits for approval, the questions its
// server asks during it, and the result in the tool panel's rendering.
type ChatToolCard struct {
	app.Compo
	mounted

	Chat       string
	Call       wire.ChatToolCall
	ServerName string
	Asks       []wire.Ask // the waiting asks raised during the call
	AskStatus  map[string]store.AskStatus
	Online     bool

	sending string          // the approval or cancel on its way
	problem string          // why the last one failed
	seen    map[string]bool // the asks shown, so only new ones take the focus
}

// CompoID keeps a card with its call.
func (t *ChatToolCard) CompoID() string { return t.Chat + "\n" + t.Call.ID }

// OnMount takes the focus into a question waiting in the card.
func (t *ChatToolCard) OnMount(ctx app.Context) {
	t.mounted.OnMount(ctx)
	t.focusNewAsk(ctx)
}

// OnUpdate takes the focus into a question that came.
func (t *ChatToolCard) OnUpdate(ctx app.Context) { t.focusNewAsk(ctx) }

// focusNewAsk moves the focus into the first pending ask not shown before.
func (t *ChatToolCard) focusNewAsk(ctx app.Context) {
	if t.seen == nil {
		t.seen = map[string]bool{}
	}
	first := ""
	for _, a := range t.Asks {
		if !t.seen[a.ID] {
			t.seen[a.ID] = true
			if first == "" && a.State == wire.AskPending {
				first = a.ID
			}
		}
	}
	if first != "" && app.IsClient {
		ctx.Defer(func(app.Context) { focusCard(first) })
	}
}

// Render implements app.Composer.
func (t *ChatToolCard) Render() app.UI {
	c := t.Call
	name := orDefault(c.Tool, c.Name)
	call, tool := chatCallOf(c), t.appTool()
	return app.Article().Class("chat-tool").DataSet("call", c.ID).DataSet("state", c.State).
		Aria("label", "Tool call: "+name).Body(
		app.Header().Class("chat-tool-head").Body(
			app.Span().Class("chat-tool-name").Body(
				app.Strong().Text(visibleControls(name)),
				app.Span().Class("chat-tool-server").Text(t.where()),
			),
			app.Span().Class("chat-tool-state").Role("status").Text(toolStateWords[c.State]),
		),
		app.Details().Class("chat-tool-fold").Open(c.State == wire.ToolApproval && c.Server == "" && c.Tool == "execute").Body(
			app.Summary().Body(
				app.Text("Arguments "),
				app.Code().Class("chat-tool-preview").Text(argsPreview(c.Arguments)),
			),
			app.Pre().Class("chat-tool-args", "code-block").Text(visibleControls(t.argsShown())),
		),
		// One element always, so that the steps coming and going never move
		// the view below it: go-app would make the view anew, and it would
		// start again, losing what it was shown.
		app.Div().Class("chat-tool-steps").Body(
			app.If(c.State == wire.ToolApproval, t.renderApproval),
			app.If(c.State == wire.ToolRunning, t.renderRunning),
			app.Range(t.Asks).Slice(func(i int) app.UI {
				a := t.Asks[i]
				return app.Div().Class("chat-ask").Body(askCardOf(a, t.AskStatus[a.ID], t.Online))
			}),
		),
		// A tool with a view shows it from the call's first event (the view
		// gets the arguments as the model writes them), in the place its
		// result then takes, so that the view is not made anew.
		app.If(c.Result != nil || (call.Status == store.CallPending && tool != nil), func() app.UI {
			return app.Div().Class("chat-tool-result").Body(renderToolOutcome(call, tool, t.ServerName, t.Chat))
		}),
		app.If(c.Error != "", func() app.UI {
			return app.P().Class("chat-tool-error", "sb-error").Text(visibleControls(c.Error))
		}),
		app.If(c.Cut, func() app.UI {
			return app.P().Class("chat-tool-cut", "sb-note").Text("The result was cut to " + sizeText(wire.MaxChatToolResult) + " for the model; it saw only the first part.")
		}),
		app.P().Class("sb-error").Role("alert").Text(t.problem),
	)
}

// renderApproval asks the person whether the call runs.
func (t *ChatToolCard) renderApproval() app.UI {
	busy := t.sending != ""
	button := func(class, label string, a wire.Approval) app.UI {
		b := app.Button().Class("sb-button", class).Type("button")
		if a == wire.ApproveRun {
			b = b.Class("is-primary")
		}
		return disabledIf(b, busy).Text(choose(t.sending == string(a), "Sending…", label)).
			OnClick(func(ctx app.Context, e app.Event) { t.approve(a) })
	}
	return app.Div().Class("chat-approval").Role("group").Aria("label", "Run this tool?").Body(
		app.P().Text("The model wants to call this tool. Run it?"),
		button("chat-run", "Run", wire.ApproveRun),
		button("chat-deny", "Deny", wire.ApproveDeny),
		button("chat-always", "Always for this conversation", wire.ApproveAlways),
	)
}

// renderRunning is the call's progress and its Cancel button.
func (t *ChatToolCard) renderRunning() app.UI {
	p := t.Call.Progress
	return app.Div().Class("chat-tool-running").Body(
		app.Span().Class("spinner").Aria("hidden", "true"),
		app.If(p != nil && p.Total > 0, func() app.UI {
			return app.Progress().Class("call-progress").Max(p.Total).Value(p.Progress).Aria("label", "Progress")
		}),
		app.If(p != nil, func() app.UI {
			return app.Span().Class("call-progress-text").Text(visibleControls(progressText(p.Progress, p.Total, p.Message)))
		}),
		disabledIf(app.Button().Class("sb-button", "chat-cancel-tool").Type("button"), t.sending != "").
			Text(choose(t.sending == "cancel", "Cancelling…", "Cancel")).
			OnClick(func(ctx app.Context, e app.Event) { t.cancel() }),
	)
}

// approve answers the approval.
func (t *ChatToolCard) approve(a wire.Approval) {
	t.do(string(a), wire.OpApproveTool, wire.ApproveToolArgs{Chat: t.Chat, Call: t.Call.ID, Approval: a}, "Could not answer: ")
}

// cancel cancels the running call.
func (t *ChatToolCard) cancel() {
	t.do("cancel", wire.OpCancelChatTool, wire.ChatToolArgs{Chat: t.Chat, Call: t.Call.ID}, "Could not cancel: ")
}

// do sends an op of the card, one at a time.
func (t *ChatToolCard) do(what string, op wire.OpName, args any, failed string) {
	if t.sending != "" {
		return
	}
	t.sending, t.problem = what, ""
	send(op, args, func(r store.Reply) {
		t.later(func(app.Context) {
			t.sending = ""
			if r.Err != nil {
				t.problem = opFailure(failed, r.Err)
			}
		})
	})
}

// appTool is the called tool when it has an App view, from the state.
func (t *ChatToolCard) appTool() *wire.Tool {
	if t.Call.Tool == "" {
		return nil
	}
	snap := currentView().Snapshot
	s := snap.ServerByID(t.Call.Server)
	if s == nil {
		return nil
	}
	for i := range s.Tools {
		if s.Tools[i].Name == t.Call.Tool && s.Tools[i].UI != nil {
			tool := s.Tools[i]
			return &tool
		}
	}
	return nil
}

// chatCallOf is a chat's finished tool call as the tool panel's rendering
// takes it.
func chatCallOf(c wire.ChatToolCall) store.Call {
	b, _ := json.Marshal(c.Result) // a decoded result marshals
	call := store.Call{
		ID: c.ID, Kind: wire.CallKindTool, Server: c.Server, Name: orDefault(c.Tool, c.Name),
		Status: store.CallOK, Tool: c.Result, JSON: store.IndentJSON(b), Size: len(b), Arguments: c.Arguments,
		Streaming: c.State == wire.ToolStreaming, PartialArguments: c.PartialArguments,
	}
	if c.Result == nil && (c.State == wire.ToolStreaming || c.State == wire.ToolApproval || c.State == wire.ToolRunning) {
		call.Status = store.CallPending
	}
	if c.Result != nil && c.Result.IsError {
		call.Status, call.Error = store.CallError, toolErrorMessage(c.Result)
	}
	return call
}

// toolErrorMessage is the text of a result marked isError.
func toolErrorMessage(r *wire.CallToolResult) string {
	var texts []string
	for _, b := range r.Content {
		if b.Type == wire.ContentText {
			texts = append(texts, b.Text)
		}
	}
	if msg := strings.TrimSpace(strings.Join(texts, "\n")); msg != "" {
		return msg
	}
	return "The tool reported an error without a message."
}

// argsText is a call's arguments as indented JSON.
func argsText(args json.RawMessage) string {
	if len(args) == 0 {
		return "{}"
	}
	return store.IndentJSON(args)
}

// argsPreview is a call's arguments on one short line.
func argsPreview(args json.RawMessage) string {
	if len(args) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if json.Compact(&b, []byte(store.IndentJSON(args))) != nil { // IndentJSON turns \u003c back into <
		return clipRunes(visibleControls(string(args)), maxArgsPreview)
	}
	return clipRunes(visibleControls(b.String()), maxArgsPreview)
}

// where says where the call runs: its server, or code mode (search and
// execute belong to no server).
func (t *ChatToolCard) where() string {
	if t.Call.Server == "" && t.Call.Tool != "" {
		return " (code mode)"
	}
	return " on " + orDefault(t.ServerName, "an unknown server")
}

// argsShown is the call's arguments as the card shows them: a program as
// its text, anything else as JSON.
func (t *ChatToolCard) argsShown() string {
	if t.Call.Server == "" && t.Call.Tool == "execute" {
		var a struct {
			Code string `json:"code"`
		}
		if json.Unmarshal(t.Call.Arguments, &a) == nil && a.Code != "" {
			return a.Code
		}
	}
	if t.Call.State == wire.ToolStreaming {
		return t.Call.PartialArguments
	}
	return argsText(t.Call.Arguments)
}
