package web

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// AgentsPage lists the user's agent keys, creates them and revokes them.
type AgentsPage struct {
	app.Compo
	mounted

	live       bool            // the keys were asked for on this live connection
	loading    bool            // the list is on its way
	keys       []wire.AgentKey // as the relay last listed them
	problem    string          // why the list could not be read
	confirming string          // id of the key whose revocation waits for a yes
	revoking   string          // id of the key being revoked
	revokeErr  string          // why a revocation failed
}

// OnMount connects the page and lists the keys once the relay is live.
func (p *AgentsPage) OnMount(ctx app.Context) {
	p.mounted.OnMount(ctx)
	connectPage(ctx, func(ctx app.Context) {
		live := currentView().Status == store.StatusLive
		if live && !p.live {
			p.load()
		}
		p.live = live
	})
	ctx.Handle(actionKeysChanged, func(ctx app.Context, _ app.Action) { p.load() })
}

// actionKeysChanged asks the page to list the keys again.
const actionKeysChanged = "switchboard.agent-keys-changed"

// load lists the keys.
func (p *AgentsPage) load() {
	p.loading = true
	send(wire.OpListAgentKeys, struct{}{}, func(r store.Reply) {
		p.later(func(app.Context) {
			p.loading = false
			if r.Err != nil {
				p.problem = opFailure("Could not list the agent keys: ", r.Err)
				return
			}
			var res wire.AgentKeysResult
			if err := json.Unmarshal(r.Data, &res); err != nil {
				p.problem = "The relay's answer could not be read."
				return
			}
			p.problem, p.keys = "", res.Keys
		})
	})
}

// Render implements app.Composer.
func (p *AgentsPage) Render() app.UI {
	v := currentView()
	return app.Div().ID("switchboard").Class("sb-app").Body(
		renderHeader(v),
		renderNav(AgentsPath),
		renderBanners(v.Status, false),
		&AskStack{Asks: v.Snapshot.Asks, Status: v.AskStatus, Departed: v.Departed, Live: v.Status == store.StatusLive},
		app.Main().ID("agents").Class("sb-page").Body(
			renderAgentHelp(),
			&AgentKeyForm{Servers: v.Snapshot.Servers},
			p.renderKeys(v.Snapshot.Servers),
			&AgentGrants{Servers: v.Snapshot.Servers, Live: v.Status == store.StatusLive},
		),
	)
}

// renderAgentHelp says how an agent uses a key.
func renderAgentHelp() app.UI {
	origin := "http://127.0.0.1:8080"
	if app.IsClient {
		u := app.Window().URL()
		origin = u.Scheme + "://" + u.Host
	}
	return app.Section().Class("sb-panel", "sb-agent-help").Aria("labelledby", "agent-help-title").Body(
		app.H2().ID("agent-help-title").Class("sb-section-title").Text("Use your servers from an agent"),
		app.P().Text("An agent reaches your servers through the relay with a key: over MCP at the address below, or as plain functions at /api/tools. Questions a server asks during an agent's call come to this dashboard; the agent only sees the result."),
		app.Pre().ID("agent-config").Class("sb-code").Text(`{
  "mcpServers": {
    "switchboard": {
      "type": "http",
      "url": "`+origin+`/mcp",
      "headers": { "Authorization": "Bearer <your key>" }
    }
  }
}`),
	)
}

// renderKeys lists the keys, newest last, with their revoke buttons.
func (p *AgentsPage) renderKeys(servers []wire.Server) app.UI {
	var body app.UI
	switch {
	case p.problem != "":
		body = app.P().ID("keys-error").Class("sb-error").Role("alert").Text(p.problem)
	case p.keys == nil:
		body = app.P().Class("sb-empty").Text("Loading your agent keys…")
	case len(p.keys) == 0:
		body = app.P().ID("keys-empty").Class("sb-empty").Text("No agent keys yet.")
	default:
		now := time.Now()
		body = app.Ul().ID("agent-keys").Class("sb-keys").Body(
			app.Range(p.keys).Slice(func(i int) app.UI { return p.renderKey(p.keys[i], servers, now) }),
		)
	}
	return app.Section().Class("sb-panel").Aria("labelledby", "keys-title").Body(
		app.H2().ID("keys-title").Class("sb-section-title").Text("Agent keys"),
		app.P().ID("revoke-error").Class("sb-error").Role("alert").Text(p.revokeErr),
		body,
	)
}

// renderKey shows one key: name, what it reaches, its dates and state.
func (p *AgentsPage) renderKey(k wire.AgentKey, servers []wire.Server, now time.Time) app.UI {
	state := keyState(k, now)
	return app.Li().Class("sb-key").DataSet("key-id", k.ID).DataSet("state", state).Body(
		app.Div().Class("sb-key-head").Body(
			app.Strong().Class("sb-key-name").Text(k.Name),
			app.Span().Class("sb-key-state").Text(state),
		),
		app.P().Class("sb-key-meta").Text(keyReach(k, servers)),
		app.P().Class("sb-key-meta").Text(keyDates(k)),
		app.If(k.ForwardSampling, func() app.UI { return app.P().Class("sb-key-meta", "sb-key-forward").Text(keyForwardText) }),
		app.If(keyModeText(k.ToolMode) != "", func() app.UI { return app.P().Class("sb-key-meta", "sb-key-mode").Text(keyModeText(k.ToolMode)) }),
		app.If(state == keyActive, func() app.UI { return p.renderRevoke(k) }),
	)
}

// renderRevoke is the key's revoke button, or the question that confirms it.
func (p *AgentsPage) renderRevoke(k wire.AgentKey) app.UI {
	return revokeButton{
		Name: k.Name, Question: "Revoke this key? Its agent is disconnected at once.",
		Class: "sb-revoke", Confirming: p.confirming == k.ID, Revoking: p.revoking == k.ID,
		Ask:     func() { p.confirming, p.revokeErr = k.ID, "" },
		Confirm: func() { p.revoke(k.ID) },
		Keep:    func() { p.confirming = "" },
	}.render()
}

// revoke sends the revocation and lists the keys again.
func (p *AgentsPage) revoke(id string) {
	if p.revoking != "" {
		return
	}
	p.revoking = id
	send(wire.OpRevokeAgentKey, wire.AgentKeyArgs{ID: id}, func(r store.Reply) {
		p.later(func(app.Context) {
			p.revoking, p.confirming = "", ""
			if r.Err != nil {
				p.revokeErr = opFailure("Could not revoke the key: ", r.Err)
			}
			p.load()
		})
	})
}

// Key states as the list shows them.
const (
	keyActive  = "active"
	keyRevoked = "revoked"
	keyExpired = "expired"
)

func keyState(k wire.AgentKey, now time.Time) string {
	switch {
	case !k.Revoked.IsZero():
		return keyRevoked
	case !k.Expires.IsZero() && !now.Before(k.Expires):
		return keyExpired
	}
	return keyActive
}

// keyReach says which servers and tools a key reaches, by server name.
func keyReach(k wire.AgentKey, servers []wire.Server) string {
	reach := "All servers"
	if !k.AllServers {
		names := make([]string, 0, len(k.Servers))
		for _, id := range k.Servers {
			name := id
			for _, s := range servers {
				if s.ID == id {
					name = s.Name
				}
			}
			names = append(names, name)
		}
		reach = "Servers: " + strings.Join(names, ", ")
		if len(names) == 0 {
			reach = "No servers (the chosen ones were removed)"
		}
	}
	if len(k.Tools) > 0 {
		reach += " · tools: " + strings.Join(k.Tools, ", ")
	}
	return reach
}

// keyDates says when a key was made, last used and ends.
func keyDates(k wire.AgentKey) string {
	const layout = "2006-01-02 15:04"
	s := "Created " + k.Created.Local().Format(layout) + " · "
	if k.LastUsed.IsZero() {
		s += "never used"
	} else {
		s += "last used " + k.LastUsed.Local().Format(layout)
	}
	switch {
	case !k.Revoked.IsZero():
		s += " · revoked " + k.Revoked.Local().Format(layout)
	case !k.Expires.IsZero():
		s += " · expires " + k.Expires.Local().Format(layout)
	}
	return s
}
