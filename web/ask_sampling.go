package web

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/schema"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// SamplingAskCard is a server's request for a model reply (sampling): the
// conversation so far, the request's parameters and the tools offered, and
// a reply the person writes (text, tool calls when tools were offered, the
// model's name), or drafts with the relay's model and then edits. Send
// reply answers; Reject tells the server the person refused. Nothing
// reaches the model unless the person presses Draft with model.
type SamplingAskCard struct {
	app.Compo
	mounted

	Ask    wire.Ask
	Status store.AskStatus

	calls     int    // tool call rows shown
	drafting  bool   // a draft is on its way
	draftNote string // what the last draft did, or why it failed
	problem   string // why a send sent nothing
}

// CompoID keeps a card with its ask.
func (c *SamplingAskCard) CompoID() string { return c.Ask.ID }

// The ids of a card's inputs.
func (c *SamplingAskCard) replyID() string     { return "ask-" + c.Ask.ID + "-reply" }
func (c *SamplingAskCard) modelID() string     { return "ask-" + c.Ask.ID + "-model" }
func (c *SamplingAskCard) toolID(i int) string { return "ask-" + c.Ask.ID + "-tool-" + strconv.Itoa(i) }
func (c *SamplingAskCard) argsID(i int) string { return "ask-" + c.Ask.ID + "-args-" + strconv.Itoa(i) }
func (c *SamplingAskCard) request() *wire.SamplingRequest {
	if c.Ask.Sampling == nil {
		return &wire.SamplingRequest{}
	}
	return c.Ask.Sampling
}

// toolsUsable reports whether the reply may call tools.
func (c *SamplingAskCard) toolsUsable() bool {
	r := c.request()
	return len(r.Tools) > 0 && r.ToolChoice != wire.ToolChoiceNone
}

// Render implements app.Composer.
func (c *SamplingAskCard) Render() app.UI {
	a, st, r := c.Ask, c.Status, c.request()
	busy := st.Sending != "" || c.drafting
	return askCard(a, wire.AskSampling).Body(
		renderAskHead(a, "asks for a model reply"),
		renderSamplingMessages(r.Messages),
		renderSamplingParams(r),
		app.Form().Class("sampling-reply-form").Attr("novalidate", true).OnSubmit(c.submit, app.EventScope(a.ID)).Body(
			app.Label().Class("field-label").For(c.replyID()).Text("Your reply"),
			app.Textarea().ID(c.replyID()).Class("ask-field", "sampling-reply").Rows(5).
				Placeholder("Write the assistant's reply").Aria("describedby", "ask-"+a.ID+"-draft-note"),
			app.If(c.toolsUsable(), func() app.UI { return c.renderToolCalls(busy) }),
			app.Label().Class("field-label").For(c.modelID()).Text("Model name (reported to the server)"),
			app.Input().ID(c.modelID()).Class("sampling-model").Type("text").Placeholder(orDefault(r.Drafter, "human")).MaxLength(200),
			app.P().ID("ask-"+a.ID+"-draft-note").Class("sampling-draft-note", "field-help").Role("status").Text(c.draftLine()),
			app.P().Class("ask-problem", "sb-error").Role("alert").Text(c.problem),
			renderAskError(st),
			c.renderForwardNote(),
			app.Div().Class("ask-actions").Body(
				disabledIf(app.Button().Class("ask-accept", "sb-button", "is-primary").Type("submit"), busy).
					Text(choose(st.Sending == string(wire.ActionAccept), "Sending…", "Send reply")),
				c.renderForward(busy),
				disabledIf(app.Button().Class("sampling-draft", "sb-button").Type("button"), busy || r.Drafter == "").
					Title(choose(r.Drafter == "", "No model is configured", "Ask "+r.Drafter+" for a draft you can edit")).
					Text(choose(c.drafting, "Drafting…", "Draft with model")).
					OnClick(func(ctx app.Context, e app.Event) { c.draft() }, app.EventScope(a.ID)),
				askButton("ask-decline", "Reject", st, string(wire.ActionDecline)).
					Title("Tell the server you refuse this request").
					OnClick(func(ctx app.Context, e app.Event) { c.answer(wire.ActionDecline) }, app.EventScope(a.ID)),
			),
		),
	)
}

// draftLine says what drafting can do or did.
func (c *SamplingAskCard) draftLine() string {
	switch {
	case c.draftNote != "":
		return c.draftNote
	case c.request().Drafter == "":
		return "No model is configured for drafts. " + howToConfigureModel
	}
	return "Draft with model sends this request to " + c.request().Drafter + "; nothing is sent to the server until you send the reply."
}

// renderToolCalls is the editor of the reply's tool calls.
func (c *SamplingAskCard) renderToolCalls(busy bool) app.UI {
	r := c.request()
	rows := make([]app.UI, c.calls)
	for i := range rows {
		rows[i] = app.Div().Class("sampling-call").Body(
			app.Label().Class("field-label").For(c.toolID(i)).Text("Tool call "+strconv.Itoa(i+1)),
			app.Select().ID(c.toolID(i)).Class("sampling-call-tool").Body(
				app.Range(r.Tools).Slice(func(j int) app.UI {
					return app.Option().Value(r.Tools[j].Name).Text(r.Tools[j].Name)
				}),
			),
			app.Label().Class("field-label").For(c.argsID(i)).Text("Arguments (a JSON object)"),
			app.Textarea().ID(c.argsID(i)).Class("sampling-call-args", "code-input").Rows(3).Spellcheck(false).Text("{}"),
		)
	}
	return app.FieldSet().Class("sampling-calls").Body(
		app.Legend().Class("field-label").Text("Tool calls"+choose(r.ToolChoice == wire.ToolChoiceRequired, " (the server requires at least one)", "")),
		app.Div().Body(rows...),
		app.Div().Class("sampling-call-actions").Body(
			disabledIf(app.Button().Class("sampling-add-call", "sb-button", "is-quiet").Type("button"), busy).Text("Add a tool call").
				OnClick(func(ctx app.Context, e app.Event) { c.calls++ }, app.EventScope(c.Ask.ID)),
			app.If(c.calls > 0, func() app.UI {
				return disabledIf(app.Button().Class("sampling-remove-call", "sb-button", "is-quiet").Type("button"), busy).Text("Remove the last tool call").
					OnClick(func(ctx app.Context, e app.Event) { c.calls-- }, app.EventScope(c.Ask.ID))
			}),
		),
	)
}

// answer sends an answer without a message.
func (c *SamplingAskCard) answer(action wire.Action) {
	if r := relay(); r != nil {
		r.AnswerAsk(c.Ask.ID, action, nil)
	}
}

// submit sends the reply the fields hold, or says what to fix.
func (c *SamplingAskCard) submit(ctx app.Context, e app.Event) {
	e.PreventDefault()
	if c.Status.Sending != "" || c.drafting {
		return
	}
	res, problem := c.collect()
	c.problem = problem
	if problem != "" {
		return
	}
	if r := relay(); r != nil {
		r.AnswerSampling(c.Ask.ID, res)
	}
}

// collect reads the reply from the page and checks it as the relay will.
func (c *SamplingAskCard) collect() (*wire.SamplingResult, string) {
	res := &wire.SamplingResult{Model: strings.TrimSpace(domValue(c.modelID()))}
	if text := domValue(c.replyID()); strings.TrimSpace(text) != "" {
		res.Content = append(res.Content, wire.SamplingContent{Type: wire.ContentText, Text: text})
	}
	for i := 0; i < c.calls && c.toolsUsable(); i++ {
		name, args := domValue(c.toolID(i)), strings.TrimSpace(domValue(c.argsID(i)))
		if args == "" {
			args = "{}"
		}
		if problem := checkToolArgs(c.request(), name, args); problem != "" {
			return nil, "Tool call " + strconv.Itoa(i+1) + ": " + problem
		}
		res.Content = append(res.Content, wire.SamplingContent{Type: wire.ContentToolUse, Name: name, Input: json.RawMessage(args)})
	}
	if len(res.Content) == 0 {
		return nil, "Write a reply (or a tool call) first; nothing was sent."
	}
	return res, ""
}

// checkToolArgs checks a tool call's arguments against the tool's input
// schema, as far as shared/schema reads it; "" when they fit.
func checkToolArgs(r *wire.SamplingRequest, name, args string) string {
	var values map[string]any
	if err := json.Unmarshal([]byte(args), &values); err != nil || values == nil {
		return "the arguments are not a JSON object."
	}
	for _, t := range r.Tools {
		if t.Name != name {
			continue
		}
		form, err := schema.Parse(t.InputSchema)
		if err != nil {
			return "" // the relay checks what it can
		}
		if errs := form.Validate(values); errs != nil {
			return "the arguments do not fit the tool's schema: " + errs.Error()
		}
		return ""
	}
	return "the server offered no tool " + strconv.Quote(name) + "."
}

// draft asks the relay's model for a draft and puts it in the fields.
func (c *SamplingAskCard) draft() {
	if c.drafting || c.request().Drafter == "" {
		return
	}
	c.drafting, c.draftNote = true, ""
	send(wire.OpDraftAsk, wire.AskArgs{Ask: c.Ask.ID}, func(r store.Reply) {
		c.later(func(ctx app.Context) {
			c.drafting = false
			if r.Err != nil {
				c.draftNote = opFailure("The model could not draft a reply: ", r.Err)
				return
			}
			var res wire.SamplingResult
			if err := json.Unmarshal(r.Data, &res); err != nil {
				c.draftNote = "The model's draft could not be read."
				return
			}
			c.fill(ctx, res)
		})
	})
}

// fill puts a draft in the fields, for the person to edit and send.
func (c *SamplingAskCard) fill(ctx app.Context, res wire.SamplingResult) {
	var texts []string
	var uses []wire.SamplingContent
	for _, b := range res.Content {
		switch b.Type {
		case wire.ContentText:
			texts = append(texts, b.Text)
		case wire.ContentToolUse:
			uses = append(uses, b)
		}
	}
	if !c.toolsUsable() {
		uses = nil
	}
	c.calls = len(uses)
	c.draftNote = "Draft by " + res.Model + ": check and edit it, then send the reply."
	ctx.Defer(func(app.Context) {
		setDOMValue(c.replyID(), strings.Join(texts, "\n\n"))
		setDOMValue(c.modelID(), res.Model)
		for i, u := range uses {
			setDOMValue(c.toolID(i), u.Name)
			setDOMValue(c.argsID(i), indentJSON(u.Input))
		}
	})
}
