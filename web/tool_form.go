package web

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/schema"
)

// formID is the id of the input at a place of the tool form.
func formID(place string) string {
	return "tf" + strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return '_'
		}
		return r
	}, place)
}

// renderNode draws the node at place: its label, its input(s), its help
// and its problem. path is the JSON Pointer of its value, for tests and tools.
func (p *ToolPanel) renderNode(n *schema.Input, place, path, name string, required bool) app.UI {
	id := formID(place)
	e := p.form.entry(place)
	row := app.Div().Class("tf-row", "tf-"+nodeKind(n)).DataSet("path", path).DataSet("place", place)
	label := visibleControls(titleOr(n.Title, name))
	head := []app.UI{app.Span().Class("field-title").Text(label)}
	if required {
		head = append(head, app.Span().Class("required-mark").Text("required"))
	}
	var body app.UI
	switch {
	case e.null && n.Nullable:
		body = app.P().Class("tf-null-note", "sb-note").Text("Sends null.")
	case n.Kind == schema.InputObject:
		return p.renderObject(n, place, path, label, required)
	default:
		body = p.renderInput(n, place, path, id, required)
	}
	return row.Body(
		app.Label().For(id).Class("tf-label").Body(head...),
		app.If(n.Nullable, func() app.UI { return p.renderNullBox(place, id) }),
		body,
		app.Small().ID(id+"-help").Class("field-help").Text(nodeHelp(n)),
		app.P().ID(id+"-error").Class("field-error").DataSet("path", path).Text(p.errs[place]),
	)
}

// nodeKind names a node's kind for styling and tests.
func nodeKind(n *schema.Input) string {
	switch n.Kind {
	case schema.InputField:
		return n.Field.Kind.String()
	case schema.InputEnum:
		return "enum"
	case schema.InputObject:
		return "object"
	case schema.InputArray:
		return "array"
	case schema.InputChoice:
		return "choice"
	}
	return "json"
}

// renderInput is the input of a node that is not an object.
func (p *ToolPanel) renderInput(n *schema.Input, place, path, id string, required bool) app.UI {
	e := p.form.entry(place)
	switch n.Kind {
	case schema.InputEnum:
		values, labels := make([]string, len(n.Options)), make([]string, len(n.Options))
		for i, o := range n.Options {
			values[i], labels[i] = strconv.Itoa(i), o.Label
		}
		return p.renderSelect(place, id, required, values, labels)
	case schema.InputArray:
		return p.renderArray(n, place, path, id)
	case schema.InputChoice:
		return p.renderChoice(n, place, path, id, required)
	case schema.InputJSON:
		return app.Div().Class("tf-json").Body(
			app.Textarea().ID(id).Class("code-input").Rows(4).Spellcheck(false).
				Aria("describedby", id+"-why "+id+"-error").Text(e.text).
				OnInput(func(ctx app.Context, ev app.Event) {
					text := ev.Get("target").Get("value").String()
					p.form.entry(place).text = text
					p.checkJSON(place, text)
				}, app.EventScope(place)),
			app.Small().ID(id+"-why").Class("tf-why", "sb-note").Text("Typed as JSON: "+n.Why+"."),
		)
	}
	if n.Field.Kind == schema.Boolean {
		bools := []string{"true", "false"}
		return p.renderSelect(place, id, required, bools, bools)
	}
	in := app.Input().ID(id).Class("tf-input").Type("text").AutoComplete(false).Spellcheck(false).
		Value(e.text).Aria("describedby", id+"-help "+id+"-error").
		OnInput(func(ctx app.Context, ev app.Event) { p.form.entry(place).text = ev.Get("target").Get("value").String() }, app.EventScope(place))
	switch n.Field.Kind {
	case schema.Integer:
		in = in.Attr("inputmode", "numeric")
	case schema.Number:
		in = in.Attr("inputmode", "decimal")
	}
	if p.errs[place] != "" {
		in = in.Aria("invalid", "true")
	}
	if required {
		in = in.Aria("required", "true")
	}
	return in
}

// renderSelect is a drop-down of labelled values; "" is no value.
func (p *ToolPanel) renderSelect(place, id string, required bool, values, labels []string) app.UI {
	e := p.form.entry(place)
	sel := app.Select().ID(id).Class("tf-input").Aria("describedby", id+"-help "+id+"-error").
		OnChange(func(ctx app.Context, ev app.Event) { p.form.entry(place).text = ev.Get("target").Get("value").String() }, app.EventScope(place))
	if p.errs[place] != "" {
		sel = sel.Aria("invalid", "true")
	}
	return sel.Body(
		selectedIf(app.Option().Value(""), e.text == "").Text(choose(required, "Choose…", "(not set)")),
		app.Range(labels).Slice(func(i int) app.UI {
			v := values[i]
			return selectedIf(app.Option().Value(v), e.text == v).Text(visibleControls(labels[i]))
		}),
	)
}

// renderNullBox is the "null" box of a nullable node.
func (p *ToolPanel) renderNullBox(place, id string) app.UI {
	e := p.form.entry(place)
	return app.Label().Class("tf-null", "choice").For(id+"-null").Body(
		checkedIf(app.Input().ID(id+"-null").Type("checkbox"), e.null).
			OnChange(func(ctx app.Context, ev app.Event) {
				p.form.entry(place).null = ev.Get("target").Get("checked").Bool()
				p.pushLater(ctx)
			}, app.EventScope(place)),
		app.Span().Text("null"),
	)
}

// renderObject is a group of the properties.
func (p *ToolPanel) renderObject(n *schema.Input, place, path, label string, required bool) app.UI {
	return app.FieldSet().Class("tf-row", "tf-object").DataSet("path", path).DataSet("place", place).Body(
		app.If(place != "", func() app.UI {
			return app.Legend().Body(app.Span().Class("field-title").Text(visibleControls(label)),
				app.If(required, func() app.UI { return app.Span().Class("required-mark").Text("required") }))
		}),
		app.If(n.Description != "" && place != "", func() app.UI {
			return app.Small().Class("field-help").Text(visibleControls(n.Description))
		}),
		app.Range(n.Props).Slice(func(i int) app.UI {
			pr := n.Props[i]
			tok := "/" + schema.PointerToken(pr.Name)
			return p.renderNode(pr.Input, place+tok, path+tok, pr.Name, pr.Required)
		}),
		app.If(place == "" && len(n.Props) == 0, func() app.UI {
			return app.P().Class("sb-note", "tf-no-args").Text("This tool takes no arguments.")
		}),
		app.P().ID(formID(place)+"-error").Class("field-error").DataSet("path", path).Text(p.errs[place]),
	)
}

// renderArray is the list's items, each removable, and an Add button.
func (p *ToolPanel) renderArray(n *schema.Input, place, path, id string) app.UI {
	e := p.form.entry(place)
	items := e.items
	return app.Div().ID(id).Class("tf-list").Body(
		app.Ol().Class("tf-items").Body(
			app.Range(items).Slice(func(i int) app.UI {
				k := items[i]
				sub := place + "/#" + strconv.Itoa(k)
				return app.Li().Class("tf-item").Body(
					p.renderNode(n.Items, sub, path+"/"+strconv.Itoa(i), "Item "+strconv.Itoa(i+1), false),
					app.Button().Class("tf-remove", "sb-button").Type("button").Text("Remove").
						Aria("label", "Remove item "+strconv.Itoa(i+1)).
						OnClick(func(ctx app.Context, ev app.Event) {
							e := p.form.entry(place)
							e.items = deleteKey(e.items, k)
							p.pushLater(ctx)
						}, app.EventScope(sub)),
				)
			}),
		),
		app.Button().Class("tf-add", "sb-button").Type("button").Text("Add item").
			OnClick(func(ctx app.Context, ev app.Event) {
				k := p.form.addItem(p.form.entry(place))
				p.form.fill(n.Items, place+"/#"+strconv.Itoa(k), nil, false, true)
				focusLater(ctx, formID(place+"/#"+strconv.Itoa(k)))
			}, app.EventScope(place)),
	)
}

// renderChoice is a drop-down of the alternatives and the chosen one's form.
func (p *ToolPanel) renderChoice(n *schema.Input, place, path, id string, required bool) app.UI {
	e := p.form.entry(place)
	alt := min(max(e.alt, 0), len(n.Alts)-1)
	sub := place + "/~" + strconv.Itoa(alt)
	return app.Div().Class("tf-choice").Body(
		app.Select().ID(id).Class("tf-input", "tf-alt").Aria("label", "Which kind").
			OnChange(func(ctx app.Context, ev app.Event) {
				p.form.entry(place).alt, _ = strconv.Atoi(ev.Get("target").Get("value").String())
				p.pushLater(ctx)
			}, app.EventScope(place)).
			Body(app.Range(n.Alts).Slice(func(i int) app.UI {
				return selectedIf(app.Option().Value(strconv.Itoa(i)), i == alt).Text(visibleControls(n.Alts[i].Label()))
			})),
		p.renderNode(n.Alts[alt], sub, path, n.Alts[alt].Label(), required),
	)
}

// checkJSON shows at once whether a JSON editor holds valid JSON.
func (p *ToolPanel) checkJSON(place, text string) {
	var v any
	err := json.Unmarshal([]byte(text), &v)
	switch {
	case strings.TrimSpace(text) == "" || err == nil:
		delete(p.errs, place)
	default:
		p.errs[place] = "is not valid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
	}
}

// pushLater sets, after the render, every input of the form to its entry:
// go-app leaves an input alone when its bound value did not change, which
// it may have after items moved or a form was filled anew.
func (p *ToolPanel) pushLater(ctx app.Context) {
	ctx.Defer(func(app.Context) { p.push(p.root, "") })
}

// push sets the inputs under place to their entries.
func (p *ToolPanel) push(n *schema.Input, place string) {
	e := p.form.entry(place)
	id := formID(place)
	if n.Nullable {
		setDOMChecked(id+"-null", e.null)
	}
	switch n.Kind {
	case schema.InputObject:
		for _, pr := range n.Props {
			p.push(pr.Input, place+"/"+schema.PointerToken(pr.Name))
		}
	case schema.InputArray:
		for _, k := range e.items {
			p.push(n.Items, place+"/#"+strconv.Itoa(k))
		}
	case schema.InputChoice:
		alt := min(max(e.alt, 0), len(n.Alts)-1)
		setDOMValue(id, strconv.Itoa(alt))
		p.push(n.Alts[alt], place+"/~"+strconv.Itoa(alt))
	default:
		setDOMValue(id, e.text)
	}
}

// deleteKey returns keys without k.
func deleteKey(keys []int, k int) []int {
	out := make([]int, 0, len(keys))
	for _, x := range keys {
		if x != k {
			out = append(out, x)
		}
	}
	return out
}

// nodeHelp is a node's description and what it accepts.
func nodeHelp(n *schema.Input) string {
	parts := []string{}
	if d := strings.TrimSpace(n.Description); d != "" {
		parts = append(parts, d)
	}
	if n.Kind == schema.InputField {
		if h := fieldHint(n.Field); h != "" {
			parts = append(parts, h)
		}
		if n.Field.Pattern != "" {
			parts = append(parts, "Pattern "+n.Field.Pattern)
		}
	}
	if n.Kind == schema.InputArray {
		if r := countHint(n.MinItems, n.MaxItems, "item", "items"); r != "" {
			parts = append(parts, upperFirst(r))
		}
	}
	return visibleControls(strings.Join(parts, " · "))
}
