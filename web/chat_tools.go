package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// renderTools is the choice of the tools the conversation offers: every
// ready server (the default), or some servers whole and single tools of
// others.
func (s *ChatSetup) renderTools() app.UI {
	c := s.choice()
	box := func(class string, on bool) app.HTMLInput {
		return checkedNow(app.Input().Type("checkbox").Class(class), on).OnChange(s.toolBox)
	}
	return app.Details().Class("chat-tools").Body(
		app.Summary().Text("Tools: "+c.summary(s.Servers)),
		app.Label().Class("chat-tools-row").Body(box("chat-tools-all", c.all()), app.Text(" All ready servers")),
		app.Ul().Class("chat-tools-servers").Body(
			app.Range(s.Servers).Slice(func(i int) app.UI {
				srv := s.Servers[i]
				return app.Li().Class("chat-tools-server-item").Body(
					app.Label().Class("chat-tools-row").Body(
						box("chat-tools-server", c.hasServer(srv.ID)).DataSet("server", srv.ID),
						app.Text(" "+srv.Name),
						app.If(srv.State != wire.StateReady, func() app.UI {
							return app.Span().Class("chat-tools-state").Text(" (" + string(srv.State) + ")")
						}),
					),
					app.If(len(srv.Tools) > 0, func() app.UI {
						return app.Ul().Class("chat-tools-list").Aria("label", "Tools of "+srv.Name).Body(
							app.Range(srv.Tools).Slice(func(j int) app.UI {
								ref := wire.ToolRef{Server: srv.ID, Tool: srv.Tools[j].Name}
								return app.Li().Body(app.Label().Class("chat-tools-row").Body(
									box("chat-tools-tool", c.hasTool(ref)).DataSet("server", ref.Server).DataSet("tool", ref.Tool),
									app.Text(" "+ref.Tool),
								))
							}),
						)
					}),
				)
			}),
		),
		app.P().Class("field-help").Text("With nothing chosen, every ready server's tools are offered."),
		app.If(len(s.Servers) == 0, func() app.UI {
			return app.P().Class("sb-empty").Text("No servers yet: add one on the Servers page.")
		}),
	)
}

// toolBox applies a box of the picker: which one it is and whether it is
// checked are read from the box, the choice from the component.
func (s *ChatSetup) toolBox(ctx app.Context, e app.Event) {
	el := ctx.JSSrc()
	on := el.Get("checked").Bool()
	ds := el.Get("dataset")
	has := func(class string) bool { return el.Get("classList").Call("contains", class).Bool() }
	c := s.choice()
	switch {
	case has("chat-tools-all") && on:
		c = toolChoice{}
	case has("chat-tools-all"):
		c = c.explicit(s.Servers)
	case has("chat-tools-tool"):
		c = c.withTool(s.Servers, wire.ToolRef{Server: ds.Get("server").String(), Tool: ds.Get("tool").String()}, on)
	default:
		c = c.withServer(s.Servers, ds.Get("server").String(), on)
	}
	s.setChoice(c)
}
