package web

import (
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// ChatTurnView is one turn of a conversation: the person's message with
// what it attached, then the answer's parts in order, the turn's status,
// figures and error, and, on the last turn, Retry, Regenerate and Edit.
//
// Each turn is its own component, known by its turn, so a streaming answer
// re-renders its own turn only: the others' fields do not change.
type ChatTurnView struct {
	app.Compo
	mounted

	Chat        string
	Turn        wire.ChatTurn
	Last        bool // the conversation's last turn, which may be run again
	Busy        bool // a turn of the conversation (or of its compare group) runs
	Asks        []wire.Ask
	AskStatus   map[string]store.AskStatus
	ServerNames map[string]string
	Online      bool

	editing bool   // the message is back in an editor
	sending string // the retry on its way
	problem string // why it failed
}

// CompoID keeps a view with its turn.
func (v *ChatTurnView) CompoID() string { return v.Turn.ID }

// editorID is the id of the editor of the turn's message.
func (v *ChatTurnView) editorID() string { return "chat-edit-" + v.Turn.ID }

// Render implements app.Composer.
func (v *ChatTurnView) Render() app.UI {
	t := v.Turn
	running := t.Status == wire.TurnRunning
	return app.Article().Class("chat-turn").DataSet("turn", t.ID).DataSet("status", t.Status).
		Aria("label", "Message "+strconv.Itoa(t.N+1)).Body(
		v.renderUser(),
		app.Div().Class("chat-parts").Aria("live", "polite").Aria("busy", choose(running, "true", "false")).Body(
			app.Range(t.Parts).Slice(v.renderPart),
		),
		app.If(running, func() app.UI {
			return app.P().Class("chat-status").Role("status").Body(
				app.Span().Class("spinner").Aria("hidden", "true"),
				app.Text(turnStatusLine(t)),
			)
		}),
		app.If(!running && endedWords[t.Status] != "", func() app.UI {
			return app.P().Class("chat-ended", "sb-note").Text(endedWords[t.Status])
		}),
		app.If(t.Error != "", func() app.UI {
			return app.P().Class("chat-error", "sb-error").Role("alert").Text(visibleControls(t.Error))
		}),
		app.If(!running && turnFigures(t) != "", func() app.UI {
			return app.P().Class("chat-figures").Text(turnFigures(t))
		}),
		app.If(v.Last && !running && !v.Busy && !v.editing, v.renderActions),
		app.P().Class("sb-error").Role("alert").Text(v.problem),
	)
}

// renderUser is the person's message, or its editor, and its attachments.
func (v *ChatTurnView) renderUser() app.UI {
	t := v.Turn
	var message app.UI = app.P().Class("chat-user-text").Text(t.Text)
	if v.editing {
		message = app.Div().Class("chat-editor").Body(
			app.Label().Class("sb-visually-hidden").For(v.editorID()).Text("Edit your message"),
			app.Textarea().ID(v.editorID()).Class("chat-edit-input").Rows(3).Text(t.Text).
				OnKeyDown(v.editorKey).OnKeyPress(keepEnter),
			app.Div().Class("chat-actions").Body(
				disabledIf(app.Button().Class("sb-button", "is-primary", "chat-resend").Type("button"), v.sending != "").
					Text(choose(v.sending == "edit", "Sending…", "Send again")).
					OnClick(func(ctx app.Context, e app.Event) { v.resend() }),
				app.Button().Class("sb-button", "chat-edit-cancel").Type("button").Text("Cancel").
					OnClick(func(ctx app.Context, e app.Event) { v.editing = false }),
			),
		)
	}
	return app.Div().Class("chat-user").Body(
		app.H3().Class("sb-visually-hidden").Text("You wrote"),
		message,
		app.If(len(t.Attachments) > 0, func() app.UI {
			return app.Ul().Class("chat-attachments").Aria("label", "Attached").Body(
				app.Range(t.Attachments).Slice(func(i int) app.UI { return v.renderAttachment(t.Attachments[i]) }),
			)
		}),
	)
}

// renderAttachment is the chip of a prompt or resource the message attached.
func (v *ChatTurnView) renderAttachment(a wire.ChatAttachment) app.UI {
	what := "Resource " + a.URI
	if a.Kind == wire.AttachPrompt {
		what = "Prompt /" + a.Name
	}
	return app.Li().Class("chat-attach", choose(a.Error != "", "is-error", "")).DataSet("kind", a.Kind).Body(
		app.Span().Class("chat-attach-what").Text(visibleControls(what)),
		app.Span().Class("chat-attach-server").Text(" · "+orDefault(v.ServerNames[a.Server], a.Server)),
		app.If(a.Error != "", func() app.UI {
			return app.Span().Class("chat-attach-error").Text(": " + visibleControls(a.Error))
		}),
	)
}

// renderPart is part i of the answer.
func (v *ChatTurnView) renderPart(i int) app.UI {
	p := v.Turn.Parts[i]
	switch p.Kind {
	case wire.PartText:
		return &ChatText{Text: p.Text, Streaming: v.Turn.Status == wire.TurnRunning && i == len(v.Turn.Parts)-1}
	case wire.PartReasoning:
		return app.Details().Class("chat-reasoning").Body(
			app.Summary().Text("Reasoning"),
			app.Div().Class("chat-reasoning-text").Text(p.Text),
		)
	case wire.PartNotice:
		return app.P().Class("chat-notice").Text(p.Text)
	case wire.PartTool:
		if p.Tool != nil {
			c := *p.Tool
			return &ChatToolCard{
				Chat: v.Chat, Call: c, ServerName: v.ServerNames[c.Server],
				Asks: asksOfCalls(v.Asks, []string{c.ID}), AskStatus: v.AskStatus, Online: v.Online,
			}
		}
	}
	return app.P().Class("chat-notice").Text("A part the dashboard does not show.")
}

// renderActions are what the last turn may do once it ended.
func (v *ChatTurnView) renderActions() app.UI {
	t := v.Turn
	again := t.Status == wire.TurnFailed || t.Status == wire.TurnInterrupted || t.Status == wire.TurnStopped
	busy := v.sending != ""
	return app.Div().Class("chat-actions").Body(
		app.If(again, func() app.UI {
			return disabledIf(app.Button().Class("sb-button", "is-primary", "chat-retry").Type("button"), busy).
				Text(choose(v.sending == "retry", "Retrying…", "Retry")).
				OnClick(func(ctx app.Context, e app.Event) { v.retry("retry", nil) })
		}).Else(func() app.UI {
			return disabledIf(app.Button().Class("sb-button", "chat-regenerate").Type("button"), busy).
				Text(choose(v.sending == "retry", "Regenerating…", "Regenerate")).
				OnClick(func(ctx app.Context, e app.Event) { v.retry("retry", nil) })
		}),
		disabledIf(app.Button().Class("sb-button", "chat-edit").Type("button"), busy).Text("Edit").
			Aria("label", "Edit your message and send it again").
			OnClick(func(ctx app.Context, e app.Event) {
				v.editing, v.problem = true, ""
				focusLater(v.ctx, v.editorID()) // the button's own context ends with the button
			}),
	)
}

// editorKey sends the edited message on Enter (Shift+Enter is a new line)
// and closes the editor on Escape.
func (v *ChatTurnView) editorKey(ctx app.Context, e app.Event) {
	switch {
	case sendsOnEnter(e):
		e.PreventDefault()
		v.resend()
	case e.Get("key").String() == "Escape":
		v.editing = false
	default:
		ctx.PreventUpdate()
	}
}

// resend runs the turn again with the edited message.
func (v *ChatTurnView) resend() {
	text := strings.TrimSpace(domValue(v.editorID()))
	if text == "" {
		v.problem = "Write a message to send."
		return
	}
	v.retry("edit", &text)
}

// retry runs the last turn again, with text when it was edited.
func (v *ChatTurnView) retry(what string, text *string) {
	if v.sending != "" {
		return
	}
	v.sending, v.problem = what, ""
	send(wire.OpRetryChat, wire.RetryChatArgs{Chat: v.Chat, Text: text}, func(r store.Reply) {
		v.later(func(app.Context) {
			v.sending = ""
			if r.Err != nil {
				v.problem = opFailure("Could not send it again: ", r.Err)
				return
			}
			v.editing = false
		})
	})
}

// endedWords say how a turn ended, when not simply done.
var endedWords = map[wire.TurnStatus]string{
	wire.TurnStopped:     "Stopped.",
	wire.TurnInterrupted: "Interrupted: the relay stopped during this answer.",
	wire.TurnStepLimit:   "Stopped at the step limit.",
}

// turnStatusLine says what a running turn does.
func turnStatusLine(t wire.ChatTurn) string {
	if len(t.Waiting) > 0 {
		return "Waiting for servers: " + strings.Join(t.Waiting, ", ")
	}
	for _, p := range t.Parts {
		if p.Kind == wire.PartTool && p.Tool != nil && p.Tool.State == wire.ToolApproval {
			return "Waiting for your approval"
		}
	}
	return "Answering…"
}

// turnFigures are a finished turn's time to first token, duration and
// tokens, or "" when the model reported none.
func turnFigures(t wire.ChatTurn) string {
	var parts []string
	if t.FirstToken > 0 {
		parts = append(parts, "first token in "+seconds(t.FirstToken))
	}
	if t.Duration > 0 {
		parts = append(parts, "took "+seconds(t.Duration))
	}
	if t.Usage.In > 0 || t.Usage.Out > 0 {
		parts = append(parts, strconv.Itoa(t.Usage.In)+" tokens in, "+strconv.Itoa(t.Usage.Out)+" out")
	}
	if len(parts) == 0 {
		return ""
	}
	return upperFirst(strings.Join(parts, " · "))
}

// seconds writes milliseconds as seconds, to the tenth (to the hundredth
// under a second).
func seconds(ms int64) string {
	prec := 1
	if ms < 1000 {
		prec = 2
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', prec, 64) + " s"
}

// ChatText is a text part of an answer, rendered from its Markdown once it
// is complete. While it streams it is shown as plain text: parsing the
// whole of a growing answer on every piece would cost more with each piece,
// until the page fell behind a long answer. Its own component, so a growing
// answer renders its last part only.
type ChatText struct {
	app.Compo

	Text      string
	Streaming bool // the part still grows
}

// Render implements app.Composer.
func (t *ChatText) Render() app.UI {
	if t.Streaming {
		pieces := streamPieces(t.Text)
		return app.Div().Class("chat-text", "is-streaming").Body(
			app.Range(pieces).Slice(func(i int) app.UI { return app.Div().Text(pieces[i]) }),
		)
	}
	return app.Div().Class("chat-text").Body(renderMarkdown(t.Text))
}

// A streaming text is shown in blocks of at least streamPiece bytes, cut
// after a line's end, or after a space once a line runs past streamLine.
const (
	streamPiece = 1 << 10
	streamLine  = 2 << 10
)

// streamPieces cuts a streaming text into the blocks it is shown in. The
// browser lays out a block's text whole, so a growing answer in one block
// would cost it more with each piece, until the page fell behind; in
// blocks, only the last one changes. A cut depends only on the text before
// it, so a block, once cut, never changes; a line longer than streamLine
// shows broken where it was cut until the answer is complete.
func streamPieces(text string) []string {
	var pieces []string
	for len(text) > streamPiece {
		cut := -1
		if i := strings.IndexByte(text[streamPiece:min(len(text), streamLine)], '\n'); i >= 0 {
			cut = streamPiece + i + 1
		} else if len(text) > streamLine {
			if i := strings.IndexAny(text[streamLine:], " \t\n"); i >= 0 {
				cut = streamLine + i + 1
			}
		}
		if cut < 0 {
			break
		}
		pieces, text = append(pieces, text[:cut]), text[cut:]
	}
	return append(pieces, text)
}
