package web

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// policyDefault is the select's value for no policy (an empty value would
// not survive as an attribute).
const policyDefault = "default"

// chatPolicies sets, for each tool of the ready servers, whether the chat
// runs it when the model calls it, asks the person first, or never runs it.
type chatPolicies struct {
	app.Compo
	mounted

	Servers []wire.Server

	policies map[wire.ToolRef]wire.ToolPolicy // nil until listed
	saving   map[wire.ToolRef]bool
	problem  string
	note     string
}

// OnMount lists the policies once the relay is live.
func (p *chatPolicies) OnMount(ctx app.Context) {
	p.mounted.OnMount(ctx)
	p.follow(ctx)
}

// follow lists the policies, or looks again in a second while the relay is
// not live: nothing else tells the panel when it is (its props may not
// change).
func (p *chatPolicies) follow(ctx app.Context) {
	if currentView().Status == store.StatusLive {
		p.load()
		return
	}
	ctx.After(time.Second, func(ctx app.Context) {
		ctx.PreventUpdate() // nothing changed yet
		p.follow(ctx)
	})
}

// load lists the person's policies.
func (p *chatPolicies) load() {
	p.problem = ""
	send(wire.OpToolPolicies, struct{}{}, func(r store.Reply) {
		p.later(func(app.Context) {
			if r.Err != nil {
				p.problem = opFailure("Could not read your tool policies: ", r.Err)
				return
			}
			var res wire.ToolPoliciesResult
			if err := json.Unmarshal(r.Data, &res); err != nil {
				p.problem = "The relay's list of tool policies could not be read."
				return
			}
			p.policies = make(map[wire.ToolRef]wire.ToolPolicy, len(res.Policies))
			for _, e := range res.Policies {
				p.policies[e.ToolRef] = e.Policy
			}
		})
	})
}

// Render implements app.Composer.
func (p *chatPolicies) Render() app.UI {
	var body app.UI
	servers := serversWithTools(p.Servers)
	switch {
	case p.policies == nil && p.problem != "":
		body = app.Button().Class("chat-policies-retry", "sb-button").Type("button").Text("Try again").
			OnClick(func(ctx app.Context, e app.Event) { p.load() })
	case p.policies == nil:
		body = app.P().Class("sb-empty").Text("Loading your tool policies…")
	case len(servers) == 0:
		body = app.P().Class("sb-empty").Text("No ready server offers tools.")
	default:
		body = app.Div().Class("chat-policy-servers").Body(
			app.Range(servers).Slice(func(i int) app.UI { return p.renderServer(i, servers[i]) }),
		)
	}
	return app.Section().Class("chat-policies").Aria("labelledby", "chat-policies-title").Body(
		app.H3().ID("chat-policies-title").Text("Tool approval"),
		app.P().Class("field-help").Text("Whether the chat runs a tool the model calls, asks you first, or never runs it. "+
			"By default a tool its server marks read-only runs, and any other asks."),
		app.P().Class("sb-error").Role("alert").Text(p.problem),
		body,
		app.P().Class("sb-note").Role("status").Text(p.note),
	)
}

// renderServer is the policies of one server's tools.
func (p *chatPolicies) renderServer(si int, s wire.Server) app.UI {
	return app.FieldSet().Class("chat-policy-server").DataSet("server", s.ID).Body(
		app.Legend().Text(s.Name),
		app.Range(s.Tools).Slice(func(ti int) app.UI {
			t := s.Tools[ti]
			ref := wire.ToolRef{Server: s.ID, Tool: t.Name}
			id := "chat-policy-" + strconv.Itoa(si) + "-" + strconv.Itoa(ti)
			cur := p.policies[ref]
			option := func(value, label string, on bool) app.UI {
				return selectedIf(app.Option().Value(value), on).Text(label)
			}
			return app.Div().Class("chat-policy-row").Body(
				app.Label().For(id).Text(titleOr(t.Title, t.Name)),
				disabledIf(app.Select().ID(id).Class("chat-policy").DataSet("server", s.ID).DataSet("tool", t.Name), p.saving[ref]).
					OnChange(func(ctx app.Context, e app.Event) {
						p.set(ctx, ref, titleOr(t.Title, t.Name), e.Get("target").Get("value").String())
					}, app.EventScope(s.ID+"\n"+t.Name)).
					Body(
						option(policyDefault, defaultPolicyLabel(t), cur == ""),
						option(string(wire.PolicyRun), "Run", cur == wire.PolicyRun),
						option(string(wire.PolicyAsk), "Ask", cur == wire.PolicyAsk),
						option(string(wire.PolicyNever), "Never", cur == wire.PolicyNever),
					),
			)
		}),
	)
}

// set sends the policy chosen for a tool; on failure the select shows the
// policy in force again.
func (p *chatPolicies) set(ctx app.Context, ref wire.ToolRef, title, value string) {
	policy := wire.ToolPolicy(value)
	if value == policyDefault {
		policy = ""
	}
	if p.saving == nil {
		p.saving = map[wire.ToolRef]bool{}
	}
	p.saving[ref], p.problem, p.note = true, "", ""
	send(wire.OpSetToolPolicy, wire.SetToolPolicyArgs{ToolRef: ref, Policy: policy}, func(r store.Reply) {
		p.later(func(ctx app.Context) {
			delete(p.saving, ref)
			if r.Err != nil {
				p.problem = opFailure("Could not change the policy of “"+title+"”: ", r.Err)
				ctx.Defer(func(app.Context) { p.showPolicies() })
				return
			}
			if policy == "" {
				delete(p.policies, ref)
			} else {
				p.policies[ref] = policy
			}
			p.note = policyNote(title, policy)
		})
	})
}

// showPolicies makes every select show the policy in force: a select the
// person changed no longer follows its options' selected attributes.
func (p *chatPolicies) showPolicies() {
	selects := app.Window().Get("document").Call("querySelectorAll", ".chat-policies select.chat-policy")
	for i := range selects.Length() {
		el := selects.Index(i)
		ds := el.Get("dataset")
		ref := wire.ToolRef{Server: ds.Get("server").String(), Tool: ds.Get("tool").String()}
		v := string(p.policies[ref])
		el.Set("value", choose(v == "", policyDefault, v))
	}
}

// serversWithTools are the ready servers that offer tools.
func serversWithTools(servers []wire.Server) []wire.Server {
	var out []wire.Server
	for _, s := range servers {
		if s.State == wire.StateReady && len(s.Tools) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// defaultPolicy is what the chat does with a tool that has no policy: run
// it when its server marks it read-only, else ask.
func defaultPolicy(t wire.Tool) wire.ToolPolicy {
	if stated(hintsOf(t).ReadOnly, false) {
		return wire.PolicyRun
	}
	return wire.PolicyAsk
}

// defaultPolicyLabel is the Default option of a tool, saying what it does.
func defaultPolicyLabel(t wire.Tool) string {
	if defaultPolicy(t) == wire.PolicyRun {
		return "Default: run (marked read-only)"
	}
	return "Default: ask (not marked read-only)"
}

// policyNote says what a saved policy does.
func policyNote(title string, policy wire.ToolPolicy) string {
	switch policy {
	case wire.PolicyRun:
		return "Saved: the chat runs “" + title + "” without asking."
	case wire.PolicyAsk:
		return "Saved: the chat asks you before it runs “" + title + "”."
	case wire.PolicyNever:
		return "Saved: the chat never runs “" + title + "”."
	}
	return "Saved: “" + title + "” follows the default."
}
