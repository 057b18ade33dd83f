package web

import (
	"encoding/json"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// Ping pings a server through the relay and shows the round-trip time.
type Ping struct {
	app.Compo
	mounted

	ServerID string

	pinging bool
	result  string // "12.3 ms", once answered
	problem string
}

// CompoID gives each server its own ping.
func (p *Ping) CompoID() string { return p.ServerID }

// Render implements app.Composer.
func (p *Ping) Render() app.UI {
	return app.Div().Class("ping").Body(
		disabledIf(app.Button().ID("server-ping").Class("sb-button").Type("button"), p.pinging).
			Text(choose(p.pinging, "Pinging…", "Ping")).OnClick(p.ping),
		app.Span().ID("ping-result").Class("ping-result").Role("status").Text(p.result),
		app.If(p.problem != "", func() app.UI {
			return app.P().Class("ping-error", "sb-error").Role("alert").Text(p.problem)
		}),
	)
}

func (p *Ping) ping(app.Context, app.Event) {
	p.pinging, p.problem = true, ""
	send(wire.OpPing, wire.ServerArgs{Server: p.ServerID}, func(r store.Reply) {
		p.later(func(app.Context) {
			p.pinging = false
			if r.Err != nil {
				p.result, p.problem = "", opFailure("Ping failed: ", r.Err)
				return
			}
			var res wire.PingResult
			if err := json.Unmarshal(r.Data, &res); err != nil {
				p.problem = "Ping failed: the relay's answer was unreadable."
				return
			}
			p.result = "Round trip: " + strconv.FormatFloat(res.RoundTripMillis, 'f', 1, 64) + " ms"
		})
	})
}
