package web

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/yosida95/uritemplate/v3"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// TemplateForm asks for the variables of a resource template (RFC 6570),
// each with the server's suggestions when it offers them, and reads the
// resource the filled template names.
type TemplateForm struct {
	app.Compo
	mounted

	ServerID     string
	Template     wire.ResourceTemplate
	Index        int  // the template's place in the list, for element ids
	CanComplete  bool // the server suggests variable values
	CanSubscribe bool // the server offers resource subscriptions

	problem string
}

// CompoID gives each template its own form, so nothing typed for one shows in another.
func (f *TemplateForm) CompoID() string { return f.ServerID + "\n" + f.Template.URITemplate }

// Render implements app.Composer.
func (f *TemplateForm) Render() app.UI {
	tpl, err := uritemplate.New(f.Template.URITemplate)
	if err != nil {
		return app.P().Class("template-invalid", "sb-error").Text("This template is malformed, so it cannot be filled in.")
	}
	names := tpl.Varnames()
	ids := f.varIDs(names)
	title := titleOr(f.Template.Title, f.Template.Name)
	return app.Form().Class("template-form").DataSet("uri-template", f.Template.URITemplate).
		Attr("novalidate", true).Aria("label", "Read from "+title).
		OnSubmit(func(ctx app.Context, e app.Event) { f.read(ctx, e, tpl, names) }).
		Body(
			app.Range(names).Slice(func(i int) app.UI {
				name, id := names[i], ids[names[i]]
				return app.Div().Class("sb-field").Body(
					app.Label().For(id).Text(name),
					&CompletionInput{
						ID: id, Class: "template-var", ArgName: name,
						Server: f.ServerID, Ref: wire.CompleteRef{Type: wire.RefResource, URI: f.Template.URITemplate},
						Argument: name, Others: ids, Enabled: f.CanComplete,
					},
				)
			}),
			app.P().Class("template-error", "sb-error").Role("alert").Text(f.problem),
			app.Div().Class("item-actions").Body(
				app.Button().Class("template-read", "sb-button").Type("submit").
					Aria("label", "Read "+title).Text("Read"),
				app.If(f.CanSubscribe, func() app.UI {
					return app.Button().Class("template-subscribe", "sb-button").Type("button").
						Aria("label", "Subscribe to the resource of "+title).Text("Subscribe").
						OnClick(func(ctx app.Context, e app.Event) { f.subscribe(tpl, names) })
				}),
			),
		)
}

// varIDs maps each variable to its input's id.
func (f *TemplateForm) varIDs(names []string) map[string]string {
	ids := make(map[string]string, len(names))
	for j, name := range names {
		ids[name] = "template-" + strconv.Itoa(f.Index) + "-var-" + strconv.Itoa(j)
	}
	return ids
}

// read expands the template with the values typed and reads the resource.
func (f *TemplateForm) read(ctx app.Context, e app.Event, tpl *uritemplate.Template, names []string) {
	e.PreventDefault()
	uri, ok := f.expand(tpl, names)
	if c := relay(); c != nil && ok {
		c.ReadResource(f.ServerID, uri)
	}
}

// subscribe subscribes to the resource the filled template names; the
// subscription shows in the resource list's other subscriptions.
func (f *TemplateForm) subscribe(tpl *uritemplate.Template, names []string) {
	uri, ok := f.expand(tpl, names)
	c := relay()
	if c == nil || !ok {
		return
	}
	c.Subscribe(f.ServerID, uri, func(e *wire.Error) {
		if e != nil {
			f.later(func(app.Context) { f.problem = opFailure("Could not subscribe: ", e) })
		}
	})
}

// expand fills the template with the values typed, or says why it cannot.
func (f *TemplateForm) expand(tpl *uritemplate.Template, names []string) (string, bool) {
	uri, ok := expandTemplate(tpl, f.varIDs(names))
	f.problem = choose(ok, "", templateProblem)
	return uri, ok
}

// templateProblem says why a template could not be filled.
const templateProblem = "These values do not fill the template; check them and try again."

// expandTemplate fills tpl with the values typed in the inputs of ids (a
// variable's input by its name); ok is false when they make no URI.
func expandTemplate(tpl *uritemplate.Template, ids map[string]string) (uri string, ok bool) {
	values := uritemplate.Values{}
	for name, id := range ids {
		if v := domValue(id); v != "" {
			values.Set(name, uritemplate.String(v))
		}
	}
	uri, err := tpl.Expand(values)
	return uri, err == nil && uri != ""
}
