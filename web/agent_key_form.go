package web

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// AgentKeyForm creates an agent key: a name, the servers it reaches (all, or
// chosen from the user's), an optional tool allow-list and a lifetime. The
// new key is shown once, with a copy button, until the person is done.
type AgentKeyForm struct {
	app.Compo
	mounted

	Servers []wire.Server // the user's servers to choose from

	chosen   bool   // servers are chosen, not all
	creating bool   // the op is on its way
	problem  string // what to fix, or why the relay refused
	secret   string // the new key, shown once; cleared when the person is done
	name     string // the new key's name
	copied   string // the copy button's report
}

// keyNeverExpires is the lifetime select's value for no expiry (an empty
// value would not survive as an attribute).
const keyNeverExpires = "never"

// keyLifetimes are the lifetimes offered, by the select's values.
var keyLifetimes = []struct{ value, label string }{
	{keyNeverExpires, "Never expires"},
	{"24h", "1 day"},
	{"168h", "7 days"},
	{"720h", "30 days"},
	{"2160h", "90 days"},
}

// Render implements app.Composer.
func (f *AgentKeyForm) Render() app.UI {
	if f.secret != "" {
		return f.renderSecret()
	}
	return app.Form().ID("create-key").Class("sb-panel", "sb-key-form").Attr("novalidate", true).
		Aria("labelledby", "create-key-title").OnSubmit(f.submit).Body(
		app.H2().ID("create-key-title").Class("sb-section-title").Text("New agent key"),
		app.Div().Class("sb-field").Body(
			app.Label().For("key-name").Text("Agent name"),
			app.Input().ID("key-name").Name("name").Type("text").AutoComplete(false).
				Placeholder("laptop assistant").MaxLength(wire.MaxAgentKeyName).Aria("describedby", "key-error"),
		),
		app.FieldSet().Class("sb-field", "sb-scope").Body(
			app.Legend().Text("Servers it may use"),
			app.Label().Class("sb-choice").Body(
				checkedIf(app.Input().ID("key-scope-all").Type("radio").Name("scope").Value("all"), !f.chosen).
					OnChange(func(ctx app.Context, e app.Event) { f.chosen = false }),
				app.Text(" All servers, including ones added later"),
			),
			app.Label().Class("sb-choice").Body(
				checkedIf(app.Input().ID("key-scope-chosen").Type("radio").Name("scope").Value("chosen"), f.chosen).
					OnChange(func(ctx app.Context, e app.Event) { f.chosen = true }),
				app.Text(" Only these:"),
			),
			app.If(f.chosen, func() app.UI {
				if len(f.Servers) == 0 {
					return app.P().Class("sb-note").Text("You have no servers yet.")
				}
				return app.Ul().ID("key-servers").Class("sb-choices").Body(
					app.Range(f.Servers).Slice(func(i int) app.UI {
						s := f.Servers[i]
						return app.Li().Body(app.Label().Class("sb-choice").Body(
							app.Input().ID(keyServerBox(s.ID)).Type("checkbox").Value(s.ID),
							app.Text(" "+s.Name),
						))
					}),
				)
			}),
		),
		app.Div().Class("sb-field").Body(
			app.Label().For("key-tools").Text("Tools it may call (optional)"),
			app.Textarea().ID("key-tools").Name("tools").Rows(2).Spellcheck(false).
				Placeholder("leave empty for all; or tool names, one per line").Aria("describedby", "key-error"),
		),
		renderModeChoice(keyModeSelect),
		renderForwardChoice(),
		app.Div().Class("sb-field").Body(
			app.Label().For("key-ttl").Text("Expires"),
			app.Select().ID("key-ttl").Name("ttl").Body(
				app.Range(keyLifetimes).Slice(func(i int) app.UI {
					return app.Option().Value(keyLifetimes[i].value).Text(keyLifetimes[i].label)
				}),
			),
		),
		disabledIf(app.Button().ID("key-submit").Class("sb-button", "is-primary").Type("submit"), f.creating).
			Text(choose(f.creating, "Creating…", "Create key")),
		app.P().ID("key-error").Class("sb-error").Role("alert").Text(f.problem),
	)
}

// keyServerBox is the id of a server's checkbox.
func keyServerBox(id string) string { return "key-server-" + id }

// renderSecret shows the new key once.
func (f *AgentKeyForm) renderSecret() app.UI {
	return app.Section().ID("new-key").Class("sb-panel", "sb-new-key").Aria("labelledby", "new-key-title").Body(
		app.H2().ID("new-key-title").Class("sb-section-title").Text("Key for "+f.name),
		app.P().Role("status").Text("Copy this key now: it is shown only this once. The relay keeps only its hash."),
		app.Div().Class("sb-secret-row").Body(
			app.Input().ID("new-key-secret").Class("sb-secret").Type("text").ReadOnly(true).
				Aria("label", "The new agent key").Spellcheck(false).Value(f.secret),
			app.Button().ID("new-key-copy").Class("sb-button").Type("button").Text("Copy").OnClick(f.copy),
		),
		app.P().ID("new-key-copied").Class("sb-note").Role("status").Text(f.copied),
		app.Button().ID("new-key-done").Class("sb-button", "is-primary").Type("button").Text("Done, I saved it").
			OnClick(func(ctx app.Context, e app.Event) { f.secret, f.copied = "", "" }),
	)
}

// copy puts the key on the clipboard.
func (f *AgentKeyForm) copy(ctx app.Context, e app.Event) {
	clip := app.Window().Get("navigator").Get("clipboard")
	if !clip.Truthy() {
		f.copied = "Copying is not available here; select the key and copy it."
		return
	}
	clip.Call("writeText", f.secret).Call("then",
		app.FuncOf(func(app.Value, []app.Value) any {
			f.later(func(app.Context) { f.copied = "Copied." })
			return nil
		}),
		app.FuncOf(func(app.Value, []app.Value) any {
			f.later(func(app.Context) { f.copied = "The browser refused to copy; select the key and copy it." })
			return nil
		}),
	)
}

// submit checks the form and sends the creation.
func (f *AgentKeyForm) submit(ctx app.Context, e app.Event) {
	e.PreventDefault()
	if f.creating {
		return
	}
	var servers []string
	if f.chosen {
		for _, s := range f.Servers {
			if domChecked(keyServerBox(s.ID)) {
				servers = append(servers, s.ID)
			}
		}
	}
	args, problem := checkAgentKey(domValue("key-name"), f.chosen, servers, domValue("key-tools"), domValue("key-ttl"))
	if f.problem = problem; problem != "" {
		return
	}
	args.ForwardSampling = domChecked(keyForwardBox)
	if m := wire.ToolMode(domValue(keyModeSelect)); m.Valid() {
		args.ToolMode = m
	}
	f.creating = true
	send(wire.OpCreateAgentKey, args, func(r store.Reply) {
		f.later(func(ctx app.Context) { f.created(ctx, r) })
	})
}

// created shows the new key, or why there is none.
func (f *AgentKeyForm) created(ctx app.Context, r store.Reply) {
	f.creating = false
	if r.Err != nil {
		f.problem = opFailure("Could not create the key: ", r.Err)
		return
	}
	var res wire.CreateAgentKeyResult
	if err := json.Unmarshal(r.Data, &res); err != nil || res.Secret == "" {
		f.problem = "The relay's answer could not be read; see the list for the key, and revoke it if you cannot use it."
		ctx.NewAction(actionKeysChanged)
		return
	}
	f.secret, f.name, f.chosen = res.Secret, res.Key.Name, false
	ctx.NewAction(actionKeysChanged)
	focusLater(ctx, "new-key-secret")
}

// checkAgentKey turns what the form holds into the op's arguments, or says
// what to fix.
func checkAgentKey(name string, chosen bool, servers []string, tools, ttl string) (wire.CreateAgentKeyArgs, string) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return wire.CreateAgentKeyArgs{}, "Give the key a name, such as the agent that will use it."
	case utf8.RuneCountInString(name) > wire.MaxAgentKeyName:
		return wire.CreateAgentKeyArgs{}, "The name is too long."
	case chosen && len(servers) == 0:
		return wire.CreateAgentKeyArgs{}, "Choose at least one server, or let the key use all of them."
	}
	args := wire.CreateAgentKeyArgs{Name: name, Servers: servers, Tools: strings.FieldsFunc(tools, func(r rune) bool {
		return r == ',' || r == '\n' || r == ' ' || r == '\t' || r == '\r'
	})}
	if len(args.Tools) > wire.MaxAgentKeyTools {
		return wire.CreateAgentKeyArgs{}, "List fewer tools."
	}
	if ttl != keyNeverExpires {
		d, err := time.ParseDuration(ttl)
		if err != nil || d <= 0 {
			return wire.CreateAgentKeyArgs{}, "Choose when the key expires."
		}
		args.TTL = d
	}
	return args, ""
}

// domChecked reads the checked property of the checkbox with id.
func domChecked(id string) bool {
	el := app.Window().GetElementByID(id)
	return el.Truthy() && el.Get("checked").Bool()
}
