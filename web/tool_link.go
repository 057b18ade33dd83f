package web

import (
	"encoding/json"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// ResultLink is a resource link of a tool result: its name and URI, and a
// Read button that reads it with the resource read op and shows its
// contents in place.
type ResultLink struct {
	app.Compo

	Server, URI, Name, MIMEType string

	reading  bool
	contents []wire.ResourceContents
	err      string
}

// Render implements app.Composer.
func (l *ResultLink) Render() app.UI {
	return app.Div().Class("result-link").DataSet("uri", l.URI).Body(
		app.Div().Class("content-head").Body(
			app.Span().Class("content-uri").Text(visibleControls(l.URI)),
			app.Span().Class("content-meta", "item-meta").Text(visibleControls(titleOr(l.Name, "")+" "+l.MIMEType)),
			disabledIf(app.Button().Class("read-link", "sb-button").Type("button"), l.reading).
				Text(choose(l.reading, "Reading…", choose(l.contents != nil, "Read again", "Read"))).
				OnClick(l.read),
		),
		app.If(l.err != "", func() app.UI { return app.P().Class("sb-error").Role("alert").Text(l.err) }),
		app.If(l.contents != nil, func() app.UI { return renderContents(l.contents) }),
	)
}

// read reads the resource and shows what came.
func (l *ResultLink) read(ctx app.Context, e app.Event) {
	c := relay()
	if c == nil {
		return
	}
	l.reading, l.err = true, ""
	c.Do(wire.OpReadResource, wire.ReadResourceArgs{Server: l.Server, URI: l.URI}, func(r store.Reply) {
		ctx.Dispatch(func(app.Context) {
			l.reading = false
			if r.Err != nil {
				l.err = opFailure("Could not read it: ", r.Err)
				return
			}
			var res wire.ReadResourceResult
			if json.Unmarshal(r.Data, &res) != nil {
				l.err = "The server's answer could not be read."
				return
			}
			l.contents = res.Contents
			if l.contents == nil {
				l.contents = []wire.ResourceContents{}
			}
		})
	})
}
