package web

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// ActivityPage shows the calls agents made, newest first, live: who called
// which tool of which server, when, for how long, how it ended and whether
// a person was asked. It never shows what was sent or answered.
type ActivityPage struct {
	app.Compo
	mounted

	live    bool // the log was asked for on this live connection
	filter  wire.ListActivityArgs
	loaded  []wire.AgentCall // the log as last listed for filter, newest first
	problem string
}

// outcomeWords are what the page says for each outcome.
var outcomeWords = map[wire.Outcome]string{
	wire.OutcomeOK:        "ok",
	wire.OutcomeToolError: "tool error",
	wire.OutcomeFailed:    "failed",
	wire.OutcomeCancelled: "cancelled",
	wire.OutcomeDenied:    "denied",
	wire.OutcomeTimedOut:  "nobody answered",
	wire.OutcomeRunning:   "running…",
}

// activityOutcomes are the outcomes in the order the filter offers them.
var activityOutcomes = []wire.Outcome{wire.OutcomeOK, wire.OutcomeToolError, wire.OutcomeFailed, wire.OutcomeCancelled, wire.OutcomeDenied, wire.OutcomeTimedOut}

// OnMount connects the page and lists the log once the relay is live.
func (p *ActivityPage) OnMount(ctx app.Context) {
	p.mounted.OnMount(ctx)
	connectPage(ctx, func(ctx app.Context) {
		live := currentView().Status == store.StatusLive
		if live && !p.live {
			p.load()
		}
		p.live = live
	})
}

// load lists the log for the current filter.
func (p *ActivityPage) load() {
	filter := p.filter
	send(wire.OpListActivity, filter, func(r store.Reply) {
		p.later(func(app.Context) {
			if filter != p.filter {
				return // a newer filter's answer is coming
			}
			if r.Err != nil {
				p.problem = opFailure("Could not read the activity: ", r.Err)
				return
			}
			var res wire.ActivityResult
			if err := json.Unmarshal(r.Data, &res); err != nil {
				p.problem = "The relay's answer could not be read."
				return
			}
			p.problem, p.loaded = "", res.Calls
		})
	})
}

// anyFilter is the value of a filter's "all" option (an empty value would
// not survive as an attribute).
const anyFilter = "*"

// setFilter changes one filter and lists again.
func (p *ActivityPage) setFilter(set func(*wire.ListActivityArgs, string)) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		v := ctx.JSSrc().Get("value").String()
		if v == anyFilter {
			v = ""
		}
		set(&p.filter, v)
		p.load()
	}
}

// Render implements app.Composer.
func (p *ActivityPage) Render() app.UI {
	v := currentView()
	calls := mergeCalls(p.loaded, v.Snapshot.AgentCalls, p.filter)
	return app.Div().ID("switchboard").Class("sb-app").Body(
		renderHeader(v),
		renderNav(ActivityPath),
		renderBanners(v.Status, false),
		&AskStack{Asks: v.Snapshot.Asks, Status: v.AskStatus, Departed: v.Departed, Live: v.Status == store.StatusLive},
		app.Main().ID("activity").Class("sb-page").Body(
			app.Section().Class("sb-panel").Aria("labelledby", "activity-title").Body(
				app.H2().ID("activity-title").Class("sb-section-title").Text("Agent activity"),
				p.renderFilters(v.Snapshot.Servers, calls),
				app.P().ID("activity-error").Class("sb-error").Role("alert").Text(p.problem),
				renderAgentCalls(calls, v.Snapshot.Servers),
			),
		),
	)
}

// renderFilters are the selects that narrow the list.
func (p *ActivityPage) renderFilters(servers []wire.Server, calls []wire.AgentCall) app.UI {
	agents := agentNames(calls, p.filter.Agent)
	return app.Div().Class("sb-filters").Body(
		app.Div().Class("sb-field").Body(
			app.Label().For("filter-agent").Text("Agent"),
			app.Select().ID("filter-agent").OnChange(p.setFilter(func(f *wire.ListActivityArgs, v string) { f.Agent = v })).Body(
				app.Option().Value(anyFilter).Text("All agents"),
				app.Range(agents).Slice(func(i int) app.UI {
					return selectedIf(app.Option().Value(agents[i]), agents[i] == p.filter.Agent).Text(agents[i])
				}),
			),
		),
		app.Div().Class("sb-field").Body(
			app.Label().For("filter-server").Text("Server"),
			app.Select().ID("filter-server").OnChange(p.setFilter(func(f *wire.ListActivityArgs, v string) { f.Server = v })).Body(
				app.Option().Value(anyFilter).Text("All servers"),
				app.Range(servers).Slice(func(i int) app.UI {
					return selectedIf(app.Option().Value(servers[i].ID), servers[i].ID == p.filter.Server).Text(servers[i].Name)
				}),
			),
		),
		app.Div().Class("sb-field").Body(
			app.Label().For("filter-outcome").Text("Outcome"),
			app.Select().ID("filter-outcome").OnChange(p.setFilter(func(f *wire.ListActivityArgs, v string) { f.Outcome = wire.Outcome(v) })).Body(
				app.Option().Value(anyFilter).Text("Any outcome"),
				app.Range(activityOutcomes).Slice(func(i int) app.UI {
					return selectedIf(app.Option().Value(activityOutcomes[i]), activityOutcomes[i] == p.filter.Outcome).Text(outcomeWords[activityOutcomes[i]])
				}),
			),
		),
	)
}

// renderAgentCalls is the table of agent calls. Each cell carries its
// column's name, which a narrow screen shows in place of the header row.
func renderAgentCalls(calls []wire.AgentCall, servers []wire.Server) app.UI {
	if len(calls) == 0 {
		return app.P().ID("activity-empty").Class("sb-empty").Text("No agent calls yet.")
	}
	return app.Table().ID("agent-calls").Class("sb-table").Body(
		app.THead().Body(app.Tr().Body(
			app.Th().Scope("col").Text("Started"),
			app.Th().Scope("col").Text("Agent"),
			app.Th().Scope("col").Text("Server"),
			app.Th().Scope("col").Text("Tool"),
			app.Th().Scope("col").Text("Took"),
			app.Th().Scope("col").Text("Outcome"),
			app.Th().Scope("col").Text("Asked you"),
		)),
		app.TBody().Body(app.Range(calls).Slice(func(i int) app.UI {
			c := calls[i]
			return app.Tr().Class("sb-call").DataSet("call-id", c.ID).DataSet("outcome", c.Outcome).Body(
				app.Td().DataSet("label", "Started").Text(c.Start.Local().Format(time.DateTime)),
				app.Td().DataSet("label", "Agent").Class("sb-call-agent").Text(c.Agent),
				app.Td().DataSet("label", "Server").Text(callServer(servers, c)),
				app.Td().DataSet("label", "Tool").Class("sb-call-tool").Body(renderCallTool(c)),
				app.Td().DataSet("label", "Took").Text(took(c)),
				app.Td().DataSet("label", "Outcome").Class("sb-call-outcome").Text(outcomeWords[c.Outcome]),
				app.Td().DataSet("label", "Asked you").Text(choose(c.Asked, "yes", "no")),
			)
		})),
	)
}

// took says how long call c took, or that it still runs.
func took(c wire.AgentCall) string {
	if c.Outcome == wire.OutcomeRunning {
		return "…"
	}
	return (time.Duration(c.Duration) * time.Millisecond).String()
}

// callServer names the server of call c; a code-mode program has none.
func callServer(servers []wire.Server, c wire.AgentCall) string {
	if c.Server == "" {
		return "(code mode)"
	}
	return serverName(servers, c.Server)
}

// renderCallTool is the tool of call c: marked when a program made it, and
// with its program when it is one (the agent's own input, cut).
func renderCallTool(c wire.AgentCall) app.UI {
	return app.Div().Body(
		app.Text(c.Tool),
		app.If(c.ByCode, func() app.UI { return app.Span().Class("sb-call-by-code").Text(" by code") }),
		app.If(c.Program != "", func() app.UI {
			return app.Details().Class("sb-call-program").Body(
				app.Summary().Text("Program"),
				app.Pre().Class("sb-code").Text(c.Program),
			)
		}),
	)
}

// serverName is the name of server id, or its id once it is gone.
func serverName(servers []wire.Server, id string) string {
	for _, s := range servers {
		if s.ID == id {
			return s.Name
		}
	}
	return id + " (removed)"
}

// mergeCalls is the listed log with the calls that arrived live since,
// those that match f, newest first, each once.
func mergeCalls(loaded, live []wire.AgentCall, f wire.ListActivityArgs) []wire.AgentCall {
	out := slices.Clone(loaded)
	for _, c := range live {
		if matches(c, f) && !slices.ContainsFunc(out, func(o wire.AgentCall) bool { return o.ID == c.ID }) {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b wire.AgentCall) int {
		if c := b.Start.Compare(a.Start); c != 0 {
			return c
		}
		return callNumber(b) - callNumber(a)
	})
	return out
}

func matches(c wire.AgentCall, f wire.ListActivityArgs) bool {
	return (f.Agent == "" || c.Agent == f.Agent) && (f.Server == "" || c.Server == f.Server) && (f.Outcome == "" || c.Outcome == f.Outcome)
}

// callNumber orders calls that started at once: logged calls' ids count up
// (a running call's is not a number, and counts as 0).
func callNumber(c wire.AgentCall) int {
	n, _ := strconv.Atoi(c.ID)
	return n
}

// agentNames are the agents seen in calls, and the one filtered on, sorted.
func agentNames(calls []wire.AgentCall, current string) []string {
	var names []string
	if current != "" {
		names = append(names, current)
	}
	for _, c := range calls {
		if !slices.Contains(names, c.Agent) {
			names = append(names, c.Agent)
		}
	}
	slices.Sort(names)
	return names
}
