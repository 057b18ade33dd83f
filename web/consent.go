package web

import (
	"encoding/json"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// Where the relay's authorization server sends the browser to consent
// (relay/agentauth ConsentPath and ConsentParam).
const (
	ConsentPath  = "/agents/consent"
	consentParam = "request"
)

// ConsentPage is the consent card of an MCP client that asks to use the
// person's servers through the relay: who asks (its host shown large), where
// the browser goes after, which servers; approve, narrow or deny.
type ConsentPage struct {
	app.Compo
	mounted

	read     bool               // the address was read (the page is mounted)
	request  string             // the pending authorization's id, from the address
	live     bool               // the card was asked for on this live connection
	card     *wire.AgentConsent // as the relay described it
	chosen   bool               // approve chosen servers, not all
	sending  bool               // an answer is on its way
	problem  string             // why the card or the answer failed
	answered string             // where the browser goes now
}

// OnMount reads the request from the address and asks for its card once
// the relay is live.
func (p *ConsentPage) OnMount(ctx app.Context) {
	p.mounted.OnMount(ctx)
	p.request, p.read = app.Window().URL().Query().Get(consentParam), true
	connectPage(ctx, func(ctx app.Context) {
		live := currentView().Status == store.StatusLive
		if live && !p.live && p.card == nil && p.request != "" {
			p.load()
		}
		p.live = live
	})
}

// load asks the relay for the card.
func (p *ConsentPage) load() {
	send(wire.OpAgentConsent, wire.AgentConsentArgs{Request: p.request}, func(r store.Reply) {
		p.later(func(app.Context) {
			if r.Err != nil {
				p.problem = opFailure("Could not read the request: ", r.Err)
				return
			}
			var c wire.AgentConsent
			if err := json.Unmarshal(r.Data, &c); err != nil {
				p.problem = "The relay's answer could not be read."
				return
			}
			p.card, p.problem = &c, ""
		})
	})
}

// Render implements app.Composer.
func (p *ConsentPage) Render() app.UI {
	v := currentView()
	return app.Div().ID("switchboard").Class("sb-app").Body(
		renderHeader(v),
		app.Main().ID("consent").Class("sb-page").Body(p.renderBody(v)),
	)
}

// renderBody is the card, or what stands before it.
func (p *ConsentPage) renderBody(v store.View) app.UI {
	switch {
	case !p.read: // prerendered: the address is read once mounted
		return app.P().Class("sb-empty").Text("Reading the request…")
	case p.request == "":
		return app.P().ID("consent-error").Class("sb-error").Role("alert").Text("This page needs an authorization request; start again from the application.")
	case v.Status == store.StatusSignedOut:
		return app.Section().ID("consent-signin").Class("sb-panel").Role("alert").Body(
			app.H1().Class("sb-section-title").Text("Sign in to Switchboard first"),
			app.P().Body(
				app.Text("An application asks to use your servers. Run "),
				app.Code().Text("switchboard login"),
				app.Text(", open the link it prints in this browser, then come back here and reload. The request waits ten minutes."),
			),
			app.Button().ID("consent-reload").Class("sb-button", "is-primary").Type("button").Text("Reload").
				OnClick(func(ctx app.Context, e app.Event) { ctx.Reload() }),
		)
	case p.problem != "" && p.card == nil:
		return app.P().ID("consent-error").Class("sb-error").Role("alert").Text(p.problem)
	case p.card == nil:
		return app.P().Class("sb-empty").Text("Reading the request…")
	case p.answered != "":
		return app.P().ID("consent-done").Role("status").Text("Answered. Returning to the application…")
	}
	return p.renderCard(*p.card, v.Snapshot.Servers)
}

// renderCard is the question itself. Everything from the client is text.
func (p *ConsentPage) renderCard(c wire.AgentConsent, servers []wire.Server) app.UI {
	identity := "It registered itself: Switchboard cannot check who made it."
	if c.Verified {
		identity = "Identified by its address " + c.ClientID
	}
	return app.Section().ID("consent-card").Class("sb-panel", "sb-consent").Aria("labelledby", "consent-title").Body(
		app.H1().ID("consent-title").Class("sb-section-title").Text("Allow an application to use your servers?"),
		app.P().ID("consent-host").Class("sb-consent-host").Text(c.ClientHost),
		app.P().Class("sb-note").Text(identity),
		app.P().Body(app.Text("It calls itself "), app.Strong().ID("consent-name").Text(c.ClientName), app.Text(".")),
		app.If(c.NameMismatch, func() app.UI {
			return app.P().ID("consent-mismatch").Class("sb-banner", "is-error").Role("alert").
				Text("Its name does not match the address it comes from. Approve only if you just added Switchboard to this application.")
		}),
		app.If(c.NewHost, func() app.UI {
			return app.P().ID("consent-new-host").Class("sb-banner").Role("note").
				Text("You have never allowed an application from this address before.")
		}),
		app.P().Body(app.Text("After you answer, your browser goes to "), app.Strong().ID("consent-redirect").Text(c.RedirectHost), app.Text(".")),
		app.P().Class("sb-note").Text("It would reach "+c.Endpoint+", and call tools, read resources and use prompts there as you could."),
		p.renderServers(c, servers),
		app.If(!c.Fixed && strings.HasSuffix(c.Endpoint, "/mcp"), func() app.UI { return renderModeChoice(consentModeSelect) }),
		app.P().ID("consent-problem").Class("sb-error").Role("alert").Text(p.problem),
		app.Div().Class("sb-actions").Body(
			disabledIf(app.Button().ID("consent-approve").Class("sb-button", "is-primary").Type("button"), p.sending).
				Text("Approve").OnClick(func(ctx app.Context, e app.Event) { p.answer(true) }),
			disabledIf(app.Button().ID("consent-deny").Class("sb-button", "is-danger").Type("button"), p.sending).
				Text("Deny").OnClick(func(ctx app.Context, e app.Event) { p.answer(false) }),
		),
	)
}

// renderServers shows the servers asked for, narrowable.
func (p *ConsentPage) renderServers(c wire.AgentConsent, servers []wire.Server) app.UI {
	name := func(id string) string {
		for _, s := range servers {
			if s.ID == id {
				return s.Name
			}
		}
		return id
	}
	if c.Fixed {
		return app.P().ID("consent-servers").Body(app.Text("Server: "), app.Strong().Text(name(c.Servers[0])))
	}
	boxes := func(ids []string) app.UI {
		return app.Ul().ID("consent-servers").Class("sb-choices").Body(
			app.Range(ids).Slice(func(i int) app.UI {
				return app.Li().Body(app.Label().Class("sb-choice").Body(
					app.Input().ID(consentServerBox(ids[i])).Type("checkbox").Value(ids[i]).Checked(true),
					app.Text(" "+name(ids[i])),
				))
			}),
		)
	}
	if !c.AllServers {
		return app.FieldSet().Class("sb-field").Body(app.Legend().Text("Servers it asks for (uncheck to narrow)"), boxes(c.Servers))
	}
	ids := make([]string, len(servers))
	for i, s := range servers {
		ids[i] = s.ID
	}
	return app.FieldSet().Class("sb-field", "sb-scope").Body(
		app.Legend().Text("Servers it may use"),
		app.Label().Class("sb-choice").Body(
			checkedIf(app.Input().ID("consent-all").Type("radio").Name("consent-scope").Value("all"), !p.chosen).
				OnChange(func(ctx app.Context, e app.Event) { p.chosen = false }),
			app.Text(" All servers, including ones added later"),
		),
		app.Label().Class("sb-choice").Body(
			checkedIf(app.Input().ID("consent-chosen").Type("radio").Name("consent-scope").Value("chosen"), p.chosen).
				OnChange(func(ctx app.Context, e app.Event) { p.chosen = true }),
			app.Text(" Only these:"),
		),
		app.If(p.chosen, func() app.UI { return boxes(ids) }),
	)
}

// consentServerBox is the id of a server's checkbox on the card.
func consentServerBox(id string) string { return "consent-server-" + id }

// answer sends the person's answer and follows the relay to the client.
func (p *ConsentPage) answer(approve bool) {
	if p.sending || p.card == nil {
		return
	}
	args := wire.AnswerAgentConsentArgs{Request: p.request, Approve: approve}
	if m := wire.ToolMode(domValue(consentModeSelect)); approve && m.Valid() {
		args.ToolMode = m
	}
	if approve {
		c := *p.card
		switch {
		case c.Fixed:
			args.Servers = c.Servers
		case c.AllServers && !p.chosen:
			args.AllServers = true
		default:
			ids := c.Servers
			if c.AllServers {
				ids = nil
				for _, s := range currentView().Snapshot.Servers {
					ids = append(ids, s.ID)
				}
			}
			for _, id := range ids {
				if domChecked(consentServerBox(id)) {
					args.Servers = append(args.Servers, id)
				}
			}
			if len(args.Servers) == 0 {
				p.problem = "Choose at least one server, or deny."
				return
			}
		}
	}
	p.sending, p.problem = true, ""
	send(wire.OpAnswerAgentConsent, args, func(r store.Reply) {
		p.later(func(app.Context) {
			p.sending = false
			var res wire.AnswerAgentConsentResult
			switch {
			case r.Err != nil:
				p.problem = opFailure("Could not answer: ", r.Err)
			case json.Unmarshal(r.Data, &res) != nil || res.Redirect == "":
				p.problem = "The relay's answer could not be read."
			default:
				p.answered = res.Redirect
				app.Window().Get("location").Call("assign", res.Redirect)
			}
		})
	})
}
