package web

import (
	"encoding/json"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// AgentGrants lists the applications a person allowed, through the relay's
// OAuth consent, to use their servers, beside the agent keys; each can be
// revoked.
type AgentGrants struct {
	app.Compo
	mounted

	Servers []wire.Server // the user's servers, for names
	Live    bool          // the relay connection is live

	asked      bool // the grants were asked for on this live connection
	grants     []wire.AgentGrant
	problem    string
	confirming string // id of the grant whose revocation waits for a yes
	revoking   string
}

// OnMount lists the grants if the relay is live already.
func (g *AgentGrants) OnMount(ctx app.Context) {
	g.mounted.OnMount(ctx)
	g.follow()
}

// OnUpdate lists the grants again when the connection comes back.
func (g *AgentGrants) OnUpdate(ctx app.Context) { g.follow() }

// follow lists the grants once per live connection.
func (g *AgentGrants) follow() {
	if g.Live && !g.asked {
		g.load()
	}
	g.asked = g.Live
}

// load lists the grants.
func (g *AgentGrants) load() {
	send(wire.OpListAgentGrants, struct{}{}, func(r store.Reply) {
		g.later(func(app.Context) {
			if r.Err != nil {
				g.problem = opFailure("Could not list the applications: ", r.Err)
				return
			}
			var res wire.AgentGrantsResult
			if err := json.Unmarshal(r.Data, &res); err != nil {
				g.problem = "The relay's answer could not be read."
				return
			}
			g.problem, g.grants = "", res.Grants
		})
	})
}

// Render implements app.Composer.
func (g *AgentGrants) Render() app.UI {
	var body app.UI
	switch {
	case g.problem != "":
		body = app.P().ID("grants-error").Class("sb-error").Role("alert").Text(g.problem)
	case g.grants == nil:
		body = app.P().Class("sb-empty").Text("Loading the applications…")
	case len(g.grants) == 0:
		body = app.P().ID("grants-empty").Class("sb-empty").Text("No application added the relay by its address yet.")
	default:
		body = app.Ul().ID("agent-grants").Class("sb-keys").Body(
			app.Range(g.grants).Slice(func(i int) app.UI { return g.renderGrant(g.grants[i]) }),
		)
	}
	return app.Section().Class("sb-panel").Aria("labelledby", "grants-title").Body(
		app.H2().ID("grants-title").Class("sb-section-title").Text("Applications you allowed"),
		app.P().Class("sb-note").Text("An MCP client that supports OAuth adds the relay by its address (…/mcp) alone; you approve it here in the dashboard."),
		body,
	)
}

// renderGrant shows one grant: who, what it reaches, when, and its revoke button.
func (g *AgentGrants) renderGrant(gr wire.AgentGrant) app.UI {
	state := keyActive
	if !gr.Revoked.IsZero() {
		state = keyRevoked
	}
	reach := keyReach(wire.AgentKey{AllServers: gr.AllServers, Servers: gr.Servers}, g.Servers)
	dates := keyDates(wire.AgentKey{Created: gr.Created, LastUsed: gr.LastUsed, Revoked: gr.Revoked})
	return app.Li().Class("sb-key", "sb-grant").DataSet("grant-id", gr.ID).DataSet("state", state).Body(
		app.Div().Class("sb-key-head").Body(
			app.Strong().Class("sb-key-name").Text(gr.ClientName),
			app.Span().Class("sb-key-state").Text(state),
		),
		app.P().Class("sb-key-meta").Text(gr.ClientHost+" · "+gr.Endpoint),
		app.P().Class("sb-key-meta").Text(reach),
		app.If(keyModeText(gr.ToolMode) != "", func() app.UI { return app.P().Class("sb-key-meta", "sb-key-mode").Text(keyModeText(gr.ToolMode)) }),
		app.P().Class("sb-key-meta").Text(dates),
		app.If(state == keyActive, func() app.UI { return g.renderRevoke(gr) }),
	)
}

// renderRevoke is the grant's revoke button, or the question that confirms it.
func (g *AgentGrants) renderRevoke(gr wire.AgentGrant) app.UI {
	return revokeButton{
		Name: gr.ClientName, Question: "Revoke this application's access? It is disconnected at once.",
		Class: "sb-grant-revoke", Confirming: g.confirming == gr.ID, Revoking: g.revoking == gr.ID,
		Ask:     func() { g.confirming = gr.ID },
		Confirm: func() { g.revoke(gr.ID) },
		Keep:    func() { g.confirming = "" },
	}.render()
}

// revoke sends the revocation and lists the grants again.
func (g *AgentGrants) revoke(id string) {
	if g.revoking != "" {
		return
	}
	g.revoking = id
	send(wire.OpRevokeAgentGrant, wire.AgentGrantArgs{ID: id}, func(r store.Reply) {
		g.later(func(app.Context) {
			g.revoking, g.confirming = "", ""
			if r.Err != nil {
				g.problem = opFailure("Could not revoke: ", r.Err)
			}
			g.load()
		})
	})
}
