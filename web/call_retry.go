package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// renderCallRetry offers, under a call that failed because its server was
// not connected or its connection broke, the server's state now and a
// Retry of its connection.
func renderCallRetry(c store.Call) app.UI {
	if c.Code != wire.CodeNotReady && c.Code != wire.CodeConnectionLost {
		return app.Div().Class("call-retry").Hidden(true)
	}
	server := c.Server
	state := serverState(currentView(), server)
	return app.Div().Class("call-retry").Body(
		app.Span().Class("call-server-state").Text("The server now: "),
		renderStateBadge(state),
		app.Button().Class("retry-call-server", "sb-button").Type("button").Text("Retry the connection").
			OnClick(func(ctx app.Context, e app.Event) {
				if r := relay(); r != nil {
					r.Do(wire.OpRetryServer, wire.ServerArgs{Server: server}, func(store.Reply) {})
				}
			}, app.EventScope(c.ID)),
	)
}
