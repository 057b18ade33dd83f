package web

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/schema"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// defaultToolArgs pre-fills the arguments box.
const defaultToolArgs = "{}"

// Argument modes of the tool panel.
const (
	modeForm = "form"
	modeJSON = "json"
)

// toolPreset is what the history asks a panel to show: arguments to edit,
// or to run at once (Run). Seq tells a new request from one applied.
type toolPreset struct {
	Args json.RawMessage
	Run  bool
	Seq  int
}

// ToolPanel calls one tool: a form drawn from its input schema, or its
// arguments as raw JSON, with the tool's hints, icon and schemas.
type ToolPanel struct {
	app.Compo

	ServerID string
	Tool     wire.Tool
	Ready    bool
	Preset   toolPreset
	// OnSent records a call made from the panel (in the history).
	OnSent func(ctx app.Context, tool, callID string, args json.RawMessage)

	root       *schema.Input // the parsed input schema; nil when it cannot be a form
	schemaText string        // the input schema root was parsed from
	form       *toolForm
	mode       string
	errs       map[string]string // problems by place of the form
	problem    string            // why the arguments cannot be sent, or what is wrong with them
	note       string            // why the arguments stay in JSON
	invalid    bool              // the arguments fail the schema; they may be sent anyway
	confirming bool              // a destructive tool waits for the person's go-ahead
	applied    int               // the last preset applied
	// attempts counts the clicks that tried to send, and stage says where
	// the last one ended (sent, invalid, confirm, problem): tests follow them.
	attempts int
	stage    string
}

// CompoID gives each tool its own panel, so a new tool starts afresh.
func (p *ToolPanel) CompoID() string { return p.ServerID + "\n" + p.Tool.Name }

// OnInit parses the schema and starts the form on its defaults.
func (p *ToolPanel) OnInit() {
	p.errs = map[string]string{}
	p.mode, p.root, p.form = modeJSON, nil, nil
	p.schemaText = string(p.Tool.InputSchema)
	if root, err := schema.ParseInput(p.Tool.InputSchema); err == nil && root.Kind == schema.InputObject {
		p.root, p.mode = root, modeForm
		p.form = newToolForm(root, nil, false)
	}
}

// OnMount applies a preset given with the panel.
func (p *ToolPanel) OnMount(ctx app.Context) { p.applyPreset(ctx) }

// OnUpdate starts afresh when the server changed the tool's input schema,
// and applies a preset the history sent since.
func (p *ToolPanel) OnUpdate(ctx app.Context) {
	if string(p.Tool.InputSchema) != p.schemaText {
		p.OnInit()
	}
	p.applyPreset(ctx)
}

// applyPreset fills the panel with the preset's arguments, and runs them if asked.
func (p *ToolPanel) applyPreset(ctx app.Context) {
	if p.Preset.Seq == 0 || p.Preset.Seq == p.applied {
		return
	}
	p.applied = p.Preset.Seq
	p.setArgs(ctx, p.Preset.Args)
	if p.Preset.Run {
		p.send(ctx, p.Preset.Args, false)
	}
}

// setArgs shows args in the form when it can show every value, and in
// the JSON box.
func (p *ToolPanel) setArgs(ctx app.Context, args json.RawMessage) {
	p.errs, p.problem, p.note, p.invalid, p.confirming = map[string]string{}, "", "", false, false
	text := store.IndentJSON(args)
	ctx.Defer(func(app.Context) { setDOMValue("tool-args", text) })
	if p.root == nil {
		return
	}
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber() // numbers reach the form as written
	if dec.Decode(&v) != nil {
		return
	}
	form := newToolForm(p.root, v, true)
	if shown, _ := form.value(); !jsonEqual(shown, v) {
		p.mode = modeJSON
		p.note = "These arguments hold values the form cannot show (such as properties the schema does not name), so they stay as JSON."
		return
	}
	p.form, p.mode = form, modeForm
	p.pushLater(ctx)
}

// Render implements app.Composer.
func (p *ToolPanel) Render() app.UI {
	t := p.Tool
	return app.Section().ID("tool-panel").Class("panel", "tool-panel").DataSet("tool-name", t.Name).
		DataSet("destructive", choose(hintsOf(t).markedDestructive(), "true", "false")).
		DataSet("attempts", itoa(p.attempts)).DataSet("stage", p.stage).
		Aria("labelledby", "tool-panel-title").Body(
		app.Div().Class("tool-panel-head").Body(
			renderToolIcon(t),
			app.H3().ID("tool-panel-title").Class("panel-title").Text(visibleControls(titleOr(t.Title, t.Name))),
		),
		renderHints(t),
		app.P().Class("panel-description").Text(visibleControls(t.Description)),
		renderTaskSupport(t),
		app.Details().Class("tool-schemas").Body(
			app.Summary().Text("Input schema"),
			app.Pre().Class("tool-schema", "code-block").Text(schemaText(t.InputSchema)),
		),
		app.If(len(t.OutputSchema) > 0, func() app.UI {
			return app.Details().Class("tool-schemas", "tool-output-schema").Body(
				app.Summary().Text("Output schema"),
				app.Pre().Class("tool-schema", "code-block").Text(schemaText(t.OutputSchema)),
			)
		}),
		p.renderModes(),
		app.If(p.mode == modeForm, func() app.UI {
			return app.Div().ID("tool-form").Class("tool-form").Body(p.renderNode(p.root, "", "", "", true))
		}).Else(func() app.UI {
			return app.Div().Class("tool-json").Body(
				app.Label().For("tool-args").Class("panel-label").Text("Arguments (a JSON object)"),
				app.Textarea().ID("tool-args").Class("code-input").Rows(6).Spellcheck(false).
					Aria("describedby", "tool-args-error").
					Aria("invalid", choose(p.problem != "", "true", "false")).
					Text(defaultToolArgs),
			)
		}),
		app.P().ID("tool-args-note").Class("sb-note").Text(p.note),
		app.P().ID("tool-args-error").Class("sb-error").Role("alert").Text(p.problem),
		p.renderConfirm(),
		app.Div().Class("panel-actions").Body(
			disabledIf(app.Button().ID("tool-call").Class("sb-button", "is-primary").Type("button"), t.Uncallable != "").
				Text("Call "+t.Name).OnClick(p.call),
			app.If(p.invalid, func() app.UI {
				return app.Button().ID("tool-send-anyway").Class("sb-button").Type("button").Text("Send anyway").
					OnClick(func(ctx app.Context, e app.Event) { p.resend(ctx, false) })
			}),
			app.Button().ID("tool-copy-args").Class("sb-button").Type("button").Text("Copy arguments").
				OnClick(p.copyArgs),
			app.If(!p.Ready, func() app.UI {
				return app.Span().Class("sb-note").Text("The server is not ready; the call may fail.")
			}),
		),
	)
}

// renderModes is the switch between the form and raw JSON.
func (p *ToolPanel) renderModes() app.UI {
	return hiddenIf(app.Div().Class("tool-modes").Role("group").Aria("label", "How to enter the arguments"), p.root == nil).Body(
		app.Button().ID("tool-mode-form").Class("sb-button", "tool-mode").Type("button").
			Aria("pressed", choose(p.mode == modeForm, "true", "false")).Text("Form").
			OnClick(func(ctx app.Context, e app.Event) { p.toForm(ctx) }),
		app.Button().ID("tool-mode-json").Class("sb-button", "tool-mode").Type("button").
			Aria("pressed", choose(p.mode == modeJSON, "true", "false")).Text("JSON").
			OnClick(func(ctx app.Context, e app.Event) { p.toJSON(ctx) }),
	)
}

// toJSON shows the form's values as JSON.
func (p *ToolPanel) toJSON(ctx app.Context) {
	if p.mode == modeJSON {
		return
	}
	v, _ := p.form.value()
	b, _ := json.MarshalIndent(v, "", "  ") // decoded values marshal
	p.mode, p.problem, p.note = modeJSON, "", ""
	ctx.Defer(func(app.Context) { setDOMValue("tool-args", string(b)) })
}

// toForm fills the form from the JSON typed, which must be an object.
func (p *ToolPanel) toForm(ctx app.Context) {
	if p.mode == modeForm || p.root == nil {
		return
	}
	args, problem := parseToolArgs(domValue("tool-args"))
	if p.problem = problem; problem != "" {
		return
	}
	p.setArgs(ctx, args)
}

// currentArgs reads the arguments, and what is wrong with them; args is nil
// when they cannot be sent at all.
func (p *ToolPanel) currentArgs() (args json.RawMessage, problems map[string]string, problem string) {
	if p.mode == modeJSON {
		args, problem = parseToolArgs(domValue("tool-args"))
		if problem != "" || p.root == nil {
			return args, nil, problem
		}
		var v any
		json.Unmarshal(args, &v) // parseToolArgs read it as an object
		problems = map[string]string{}
		for _, pr := range p.root.Validate(v) {
			problems[pr.Path] = pr.Reason
		}
		return args, problems, ""
	}
	v, b := p.form.value()
	args, _ = json.Marshal(v) // decoded values marshal
	return args, p.form.problems(v, b), ""
}

// call checks the arguments and sends tool.call; nothing is sent while they
// do not parse, and arguments that fail the schema wait for Send anyway.
func (p *ToolPanel) call(ctx app.Context, e app.Event) {
	args, problems, problem := p.currentArgs()
	p.invalid, p.confirming = false, false
	p.attempts++
	if p.problem = problem; problem != "" {
		p.stage = "problem"
		focusLater(ctx, "tool-args")
		return
	}
	if len(problems) > 0 {
		p.stage = "invalid"
		p.invalid = true
		p.problem = problemsText(problems, p.mode == modeJSON)
		if p.mode == modeForm {
			p.errs = problems
		}
		return
	}
	p.errs = map[string]string{}
	p.send(ctx, args, false)
}

// resend sends what the panel shows now, past the schema's objections
// (Send anyway) or the destructive tool's question (confirmed): what was
// typed since the first click counts, and a syntax error still stops it.
func (p *ToolPanel) resend(ctx app.Context, confirmed bool) {
	args, _, problem := p.currentArgs()
	if p.problem = problem; problem != "" {
		p.invalid, p.confirming, p.stage = false, false, "problem"
		focusLater(ctx, "tool-args")
		return
	}
	p.send(ctx, args, confirmed)
}

// send calls the tool, once the person confirmed a destructive one.
func (p *ToolPanel) send(ctx app.Context, args json.RawMessage, confirmed bool) {
	p.attempts++
	if !confirmed && hintsOf(p.Tool).markedDestructive() {
		p.stage = "confirm"
		p.confirming = true
		focusLater(ctx, "tool-confirm-run")
		return
	}
	p.invalid, p.confirming, p.problem, p.stage = false, false, "", "sent"
	if c := relay(); c != nil {
		id := c.CallTool(p.ServerID, p.Tool.Name, args)
		if p.OnSent != nil {
			p.OnSent(ctx, p.Tool.Name, id, args)
		}
	}
}

// renderConfirm asks before a destructive tool runs.
func (p *ToolPanel) renderConfirm() app.UI {
	return hiddenIf(app.Div().ID("tool-confirm").Class("tool-confirm").Role("alertdialog").
		Aria("labelledby", "tool-confirm-text"), !p.confirming).
		OnKeyDown(func(ctx app.Context, e app.Event) {
			if e.Get("key").String() == "Escape" {
				p.confirming = false
				focusLater(ctx, "tool-call")
			}
		}).Body(
		app.P().ID("tool-confirm-text").Text(confirmText(hintsOf(p.Tool), p.Tool.Name)),
		app.Button().ID("tool-confirm-run").Class("sb-button", "is-danger").Type("button").Text("Run "+p.Tool.Name).
			OnClick(func(ctx app.Context, e app.Event) { p.resend(ctx, true) }),
		app.Button().ID("tool-confirm-cancel").Class("sb-button").Type("button").Text("Don't run").
			OnClick(func(ctx app.Context, e app.Event) { p.confirming = false; focusLater(ctx, "tool-call") }),
	)
}

// confirmText says why a call is asked about.
func confirmText(h toolHints, name string) string {
	if h.Destructive != nil {
		return "The server marks “" + name + "” as destructive: it may delete or overwrite things. Run it?"
	}
	return "The server does not say that “" + name + "” is safe, so it may delete or overwrite things. Run it?"
}

// problemsText sums up what is wrong, pointing at the fields (or listing
// the paths in JSON mode).
func problemsText(problems map[string]string, list bool) string {
	lead := "Some arguments do not fit the tool's schema"
	if !list {
		return lead + ": see the marked fields. The server decides; you may send them anyway."
	}
	paths := make([]string, 0, len(problems))
	for path := range problems {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	parts := make([]string, len(paths))
	for i, path := range paths {
		parts[i] = choose(path == "", "(arguments)", path) + " " + problems[path]
	}
	return lead + ": " + strings.Join(parts, "; ") + ". You may send them anyway."
}

// copyArgs puts the arguments, as JSON, on the clipboard.
func (p *ToolPanel) copyArgs(ctx app.Context, e app.Event) {
	args, _, problem := p.currentArgs()
	if problem != "" {
		p.problem = problem
		return
	}
	copyText(store.IndentJSON(args))
}

// schemaText is a tool's schema as indented JSON text.
func schemaText(schema json.RawMessage) string {
	if len(schema) == 0 {
		return "(no schema)"
	}
	return store.IndentJSON(schema)
}
