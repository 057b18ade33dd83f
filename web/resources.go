package web

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// ResourcesTab lists a server's resources, each with a Read button, and its
// resource templates.
type ResourcesTab struct {
	app.Compo

	ServerID  string
	Resources []wire.Resource
	Templates []wire.ResourceTemplate
	Calls     []store.Call // resource reads from this server, newest first
	Ready     bool
	// Subscriptions are the resources subscribed to; Capabilities say
	// whether the server offers subscriptions and completions.
	Subscriptions []wire.Subscription
	Capabilities  *wire.ServerCapabilities

	marks newMarks
	subscriptionView
}

// CompoID makes another server's resources a new list.
func (t *ResourcesTab) CompoID() string { return t.ServerID }

// OnInit takes the resources shown first as known.
func (t *ResourcesTab) OnInit() { t.marks.seed(t.keys()) }

// OnUpdate marks the resources and templates that arrived since the last render.
func (t *ResourcesTab) OnUpdate(ctx app.Context) { t.marks.update(ctx, t.keys()) }

// keys names resources by URI and templates by URI template; a template
// cannot collide with a resource, its key starts with "template ".
func (t *ResourcesTab) keys() []string {
	out := make([]string, 0, len(t.Resources)+len(t.Templates))
	for _, r := range t.Resources {
		out = append(out, r.URI)
	}
	for _, tpl := range t.Templates {
		out = append(out, templateKey(tpl.URITemplate))
	}
	return out
}

func templateKey(uriTemplate string) string { return "template " + uriTemplate }

// Render implements app.Composer.
func (t *ResourcesTab) Render() app.UI {
	return app.Div().Class("resources-tab", "split").Body(
		app.Div().Class("split-list").Body(
			app.Ul().Class("resource-list", "item-list").Body(
				app.Range(t.Resources).Slice(func(i int) app.UI { return t.renderResource(t.Resources[i]) }),
			),
			app.P().Class("sb-empty").Text(emptyListText(len(t.Resources), t.Ready, "resources")),
			hiddenIf(app.H3().Class("list-title"), len(t.Templates) == 0).Text("Resource templates"),
			app.Ul().Class("template-list", "item-list").Body(
				app.Range(t.Templates).Slice(func(i int) app.UI { return t.renderTemplate(i, t.Templates[i]) }),
			),
			t.renderSubscriptions(),
		),
		app.Div().Class("split-side").Body(
			renderCalls("Resource reads", t.Calls),
		),
	)
}

func (t *ResourcesTab) renderResource(r wire.Resource) app.UI {
	uri := r.URI
	return app.Li().Class("resource-item", "item", t.marks.class(uri)).DataSet("resource-uri", uri).Body(
		app.Div().Class("item-row").Body(
			app.Div().Class("item-text").Body(
				app.Span().Class("resource-title", "item-title").Text(titleOr(r.Title, r.Name)),
				app.Span().Class("resource-uri", "item-key").Text(uri),
				app.Span().Class("resource-description", "item-description").Text(r.Description),
				app.Span().Class("item-meta").Text(resourceMeta(r.MIMEType, r.Size)),
			),
			app.Div().Class("item-actions").Body(
				app.Button().Class("resource-read", "sb-button").Type("button").
					Aria("label", "Read "+titleOr(r.Title, r.Name)).Text("Read").
					OnClick(func(ctx app.Context, e app.Event) {
						if c := relay(); c != nil {
							c.ReadResource(t.ServerID, uri)
						}
					}, app.EventScope(uri)),
				t.subscribeButton(uri, titleOr(r.Title, r.Name)),
			),
		),
		t.renderUpdated(uri),
	)
}

func (t *ResourcesTab) renderTemplate(i int, tpl wire.ResourceTemplate) app.UI {
	return app.Li().Class("template-item", "item", t.marks.class(templateKey(tpl.URITemplate))).
		DataSet("uri-template", tpl.URITemplate).Body(
		app.Span().Class("template-title", "item-title").Text(titleOr(tpl.Title, tpl.Name)),
		app.Span().Class("template-uri", "item-key").Text(tpl.URITemplate),
		app.Span().Class("template-description", "item-description").Text(tpl.Description),
		app.Span().Class("item-meta").Text(resourceMeta(tpl.MIMEType, 0)),
		&TemplateForm{
			ServerID: t.ServerID, Template: tpl, Index: i,
			CanComplete: t.Capabilities.CanComplete(), CanSubscribe: t.Capabilities.CanSubscribe(),
		},
	)
}

// resourceMeta is the small print of a resource: its type and size, when known.
func resourceMeta(mime string, size int64) string {
	switch {
	case mime != "" && size > 0:
		return mime + ", " + strconv.FormatInt(size, 10) + " bytes"
	case size > 0:
		return strconv.FormatInt(size, 10) + " bytes"
	default:
		return mime
	}
}
