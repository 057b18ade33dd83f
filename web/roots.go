package web

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// RootsEditor is the person's list of roots: the folders their servers may
// work in (MCP roots). It opens from the header; every server sees the list
// and is told when it changes, unless the person excluded it in its Info
// tab. The relay checks every edit again.
type RootsEditor struct {
	app.Compo
	mounted

	Roots []wire.Root // as the relay holds them

	saving  bool
	problem string
}

// The ids of the editor's inputs.
const (
	rootURIID  = "roots-uri"
	rootNameID = "roots-name"
)

// Render implements app.Composer.
func (r *RootsEditor) Render() app.UI {
	return app.Details().ID("roots").Class("sb-roots").OnKeyDown(closeOnEscape).Body(
		app.Summary().ID("roots-toggle").Class("sb-button", "is-quiet").Text("Roots ("+strconv.Itoa(len(r.Roots))+")"),
		app.Section().Class("roots-panel").Aria("labelledby", "roots-title").Body(
			app.H2().ID("roots-title").Class("sb-section-title").Text("Roots"),
			app.P().Class("field-help").Text("Folders your servers may work in. Every server sees this list unless you exclude it in the server's Info tab."),
			app.Ul().ID("roots-list").Class("roots-list").Body(
				app.Range(r.Roots).Slice(func(i int) app.UI { return r.renderRoot(r.Roots[i]) }),
			),
			app.P().Class("sb-empty").Text(choose(len(r.Roots) == 0, "No roots yet.", "")),
			app.Form().ID("roots-add").Class("roots-add").Attr("novalidate", true).OnSubmit(r.add).Body(
				app.Div().Class("sb-field").Body(
					app.Label().For(rootURIID).Text("Folder (a file:// URI or an absolute path)"),
					app.Input().ID(rootURIID).Type("text").AutoComplete(false).Spellcheck(false).
						Placeholder("file:///home/me/project").Aria("describedby", "roots-error"),
				),
				app.Div().Class("sb-field").Body(
					app.Label().For(rootNameID).Text("Name (optional)"),
					app.Input().ID(rootNameID).Type("text").AutoComplete(false).MaxLength(wire.MaxRootName),
				),
				disabledIf(app.Button().ID("roots-submit").Class("sb-button", "is-primary").Type("submit"), r.saving).
					Text(choose(r.saving, "Saving…", "Add root")),
			),
			app.P().ID("roots-error").Class("sb-error").Role("alert").Text(r.problem),
		),
	)
}

func (r *RootsEditor) renderRoot(root wire.Root) app.UI {
	uri := root.URI
	return app.Li().Class("root-item").DataSet("uri", uri).Body(
		app.Span().Class("root-name").Text(titleOr(root.Name, rootPath(uri))),
		app.Code().Class("root-uri").Text(uri),
		disabledIf(app.Button().Class("root-remove", "sb-button", "is-quiet").Type("button"), r.saving).
			Aria("label", "Remove the root "+uri).Text("Remove").
			OnClick(func(ctx app.Context, e app.Event) {
				r.save(slices.DeleteFunc(slices.Clone(r.Roots), func(x wire.Root) bool { return x.URI == uri }), false)
			}, app.EventScope(uri)),
	)
}

// add checks the typed root and sends the list with it.
func (r *RootsEditor) add(ctx app.Context, e app.Event) {
	e.PreventDefault()
	if r.saving {
		return
	}
	roots, err := withRoot(r.Roots, domValue(rootURIID), domValue(rootNameID))
	if err != nil {
		r.problem = upperFirst(err.Error()) + "."
		return
	}
	r.save(roots, true)
}

// save sends a new list. A refused one leaves what was typed; an accepted
// added root empties the inputs.
func (r *RootsEditor) save(roots []wire.Root, added bool) {
	r.saving, r.problem = true, ""
	send(wire.OpSetRoots, wire.SetRootsArgs{Roots: roots}, func(rep store.Reply) {
		r.later(func(app.Context) {
			r.saving = false
			if rep.Err != nil {
				r.problem = opFailure("Could not save the roots: ", rep.Err)
				return
			}
			if added {
				setDOMValue(rootURIID, "")
				setDOMValue(rootNameID, "")
			}
		})
	})
}

// withRoot returns roots with the typed root added, checked as the relay
// checks it. An absolute path is taken as the file:// URI of that path.
func withRoot(roots []wire.Root, typedURI, name string) ([]wire.Root, error) {
	uri := strings.TrimSpace(typedURI)
	if uri == "" {
		return nil, errors.New("type the folder's file:// URI or absolute path")
	}
	if strings.HasPrefix(uri, "/") {
		uri = (&url.URL{Scheme: "file", Path: uri}).String()
	}
	out := append(slices.Clone(roots), wire.Root{URI: uri, Name: strings.TrimSpace(name)})
	if err := wire.CheckRoot(out[len(out)-1]); err != nil {
		if !strings.HasPrefix(uri, "file:") {
			// what to type instead, for a web address or a relative path
			return nil, fmt.Errorf("%w; type an absolute path such as /home/me/project, or a file:// URI", err)
		}
		return nil, err
	}
	if slices.ContainsFunc(roots, func(x wire.Root) bool { return x.URI == uri }) {
		return nil, errors.New(uri + " is in the list already")
	}
	if err := wire.CheckRoots(out); err != nil {
		return nil, err
	}
	return out, nil
}

// rootPath is the path of a file:// URI, to name a root without a name.
func rootPath(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.Path != "" {
		return u.Path
	}
	return uri
}

// closeOnEscape closes the open roots editor and puts the focus back on its
// toggle, as Escape does to the topmost card.
func closeOnEscape(ctx app.Context, e app.Event) {
	if e.Get("key").String() != "Escape" {
		return
	}
	d := app.Window().GetElementByID("roots")
	if !d.Truthy() || !d.Get("open").Bool() {
		return
	}
	e.StopImmediatePropagation()
	d.Set("open", false)
	focusLater(ctx, "roots-toggle")
}
