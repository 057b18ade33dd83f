package web

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/servercfg"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// ServerSettings edits a server in place: name, URL, transport, headers
// (names shown; a value can be replaced or the header deleted, never read)
// and retry settings. Saving restarts the server's connection.
type ServerSettings struct {
	app.Compo
	mounted

	Server wire.Server

	saving  bool
	problem string
	field   string
	note    string
	headers int // new header rows shown
}

// CompoID gives each server its own form, so that nothing typed for one
// server (a header value above all) is saved on another.
func (f *ServerSettings) CompoID() string { return f.Server.ID }

// Render implements app.Composer.
func (f *ServerSettings) Render() app.UI {
	s := f.Server
	retry := wire.Retry{}
	if s.Retry != nil {
		retry = *s.Retry
	}
	existing := make([]app.UI, len(s.HeaderNames))
	for i, name := range s.HeaderNames {
		is := strconv.Itoa(i)
		existing[i] = app.Div().Class("sb-header-row", "is-set").DataSet("header", name).Body(
			app.Span().Class("header-name").Text(name),
			app.Label().For("edit-header-"+is).Class("sb-visually-hidden").Text("New value for "+name),
			app.Input().ID("edit-header-"+is).Class("header-value").Type("password").Attr("autocomplete", "new-password").
				Placeholder("set; type to replace"),
			app.Label().Class("header-delete").Body(
				app.Input().ID("edit-header-delete-"+is).Type("checkbox"),
				app.Text(" Delete"),
			),
		)
	}
	return app.Form().ID("edit-server").Class("edit-server").Attr("novalidate", true).OnSubmit(f.submit).Body(
		app.Div().Class("sb-field").Body(
			app.Label().For("edit-name").Text("Name"),
			app.Input().ID("edit-name").Type("text").AutoComplete(false).Value(s.Name).
				Aria("invalid", f.field == fieldName).Aria("describedby", "edit-error"),
		),
		app.Div().Class("sb-field").Body(
			app.Label().For("edit-url").Text("URL"),
			app.Input().ID("edit-url").Type("text").Attr("inputmode", "url").AutoComplete(false).Spellcheck(false).
				Value(s.URL).Aria("invalid", f.field == fieldURL).Aria("describedby", "edit-error"),
		),
		app.Div().Class("sb-field").Body(
			app.Label().For("edit-transport").Text("Transport"),
			app.Select().ID("edit-transport").Body(
				app.Option().Value(wire.TransportAuto).Selected(s.Transport == wire.TransportAuto).Text("Auto (Streamable HTTP, else SSE)"),
				app.Option().Value(wire.TransportStreamable).Selected(s.Transport == wire.TransportStreamable).Text("Streamable HTTP"),
				app.Option().Value(wire.TransportSSE).Selected(s.Transport == wire.TransportSSE).Text("SSE (legacy)"),
			),
		),
		app.FieldSet().Class("sb-field").Body(
			app.Legend().Text("Headers (values are kept secret)"),
			app.Div().Class("sb-header-rows").Body(existing...),
			renderHeaderRows("edit-new-header", f.headers, f.field == fieldHeaders),
			app.Button().ID("edit-header-row").Class("sb-button", "is-quiet").Type("button").Text("Add header").
				OnClick(func(ctx app.Context, e app.Event) { f.headers++ }),
		),
		app.FieldSet().Class("sb-field", "retry-fields").Body(
			app.Legend().Text("Reconnecting (0 or empty: the relay's default)"),
			renderNumber("edit-retry-attempts", "Attempts before giving up", retry.Attempts, f.field == fieldRetry),
			renderNumber("edit-retry-base", "First delay (ms)", retry.BaseDelayMS, f.field == fieldRetry),
			renderNumber("edit-retry-max", "Longest delay (ms)", retry.MaxDelayMS, f.field == fieldRetry),
		),
		disabledIf(app.Button().ID("edit-submit").Class("sb-button", "is-primary").Type("submit"), f.saving).
			Text(choose(f.saving, "Saving…", "Save and reconnect")),
		app.P().ID("edit-error").Class("sb-error").Role("alert").Text(f.problem),
		app.P().ID("edit-note").Class("sb-note").Role("status").Text(f.note),
	)
}

// renderNumber is a labelled number input showing n (empty for 0).
func renderNumber(id, label string, n int, invalid bool) app.UI {
	v := ""
	if n != 0 {
		v = strconv.Itoa(n)
	}
	return app.Div().Class("sb-field").Body(
		app.Label().For(id).Text(label),
		app.Input().ID(id).Type("number").Attr("min", "0").Value(v).Aria("invalid", invalid).Aria("describedby", "edit-error"),
	)
}

// settingsInput is what the settings form holds.
type settingsInput struct {
	Name, URL string
	Transport wire.Transport
	Replace   map[string]string // existing header → new value ("" keeps it)
	Delete    map[string]bool   // existing headers to delete
	New       []headerRow
	Retry     [3]string // attempts, first delay, longest delay as typed
}

// checkSettings returns the update op's arguments with only what changed,
// or the problem and its field.
func checkSettings(s wire.Server, in settingsInput) (args wire.UpdateServerArgs, problem, field string) {
	args.Server = s.ID
	if strings.TrimSpace(in.Name) != s.Name {
		name, problem := checkServerName(in.Name, nil)
		if problem != "" {
			return args, problem, fieldName
		}
		args.Name = &name
	}
	if strings.TrimSpace(in.URL) != s.URL {
		u, problem := checkServerURL(in.URL)
		if problem != "" {
			return args, problem, fieldURL
		}
		args.URL = &u // hidden secrets (•••) left as they are keep their values
	}
	if in.Transport != "" && in.Transport != s.Transport {
		t := in.Transport
		args.Transport = &t
	}
	headers, problem := checkHeaderRows(in.New, true)
	if problem != "" {
		return args, problem, fieldHeaders
	}
	for name, value := range in.Replace {
		if value == "" || in.Delete[name] {
			continue
		}
		if err := servercfg.CheckHeader(name, value); err != nil {
			return args, upperFirst(err.Error()) + ".", fieldHeaders
		}
		if headers == nil {
			headers = map[string]string{}
		}
		headers[name] = value
	}
	for name, del := range in.Delete {
		if del {
			if headers == nil {
				headers = map[string]string{}
			}
			headers[name] = ""
		}
	}
	args.Headers = headers
	var r wire.Retry
	for i, p := range []*int{&r.Attempts, &r.BaseDelayMS, &r.MaxDelayMS} {
		typed := strings.TrimSpace(in.Retry[i])
		if typed == "" {
			continue
		}
		n, err := strconv.Atoi(typed)
		if err != nil {
			return args, fmt.Sprintf("%q is not a whole number.", typed), fieldRetry
		}
		*p = n
	}
	if err := servercfg.CheckRetry(r); err != nil {
		return args, upperFirst(err.Error()) + ".", fieldRetry
	}
	current := wire.Retry{}
	if s.Retry != nil {
		current = *s.Retry
	}
	if r != current {
		args.Retry = &r
	}
	return args, "", ""
}

// submit checks the form and sends server.update.
func (f *ServerSettings) submit(ctx app.Context, e app.Event) {
	e.PreventDefault()
	if f.saving {
		return
	}
	s := f.Server
	in := settingsInput{Name: domValue("edit-name"), URL: domValue("edit-url"), Transport: wire.Transport(domValue("edit-transport")),
		Replace: map[string]string{}, Delete: map[string]bool{}, New: headerRowsValue("edit-new-header", f.headers),
		Retry: [3]string{domValue("edit-retry-attempts"), domValue("edit-retry-base"), domValue("edit-retry-max")}}
	for i, name := range s.HeaderNames {
		is := strconv.Itoa(i)
		in.Replace[name] = domValue("edit-header-" + is)
		if el := app.Window().GetElementByID("edit-header-delete-" + is); el.Truthy() && el.Get("checked").Bool() {
			in.Delete[name] = true
		}
	}
	args, problem, field := checkSettings(s, in)
	f.note = ""
	if f.problem, f.field = problem, field; problem != "" {
		return
	}
	moved := args.URL != nil && !sameOrigin(s.URL, *args.URL)
	f.saving = true
	send(wire.OpUpdateServer, args, func(r store.Reply) {
		f.later(func(ctx app.Context) {
			f.saving = false
			if r.Err != nil {
				f.problem = opFailure("Could not save: ", r.Err)
				return
			}
			for i := range s.HeaderNames {
				setDOMValue("edit-header-"+strconv.Itoa(i), "")
				setDOMChecked("edit-header-delete-"+strconv.Itoa(i), false)
			}
			clearHeaderRows("edit-new-header", f.headers)
			f.headers = 0
			f.note = "Saved; the server reconnects with the new settings."
			if moved {
				f.note += " The address moved to another site, so its sign-in (OAuth tokens) was dropped: authorize again if asked."
			}
		})
	})
}

// sameOrigin reports whether two URLs have the same scheme, host and port.
func sameOrigin(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host)
}

// ConnectToggle disconnects a server without removing it, or connects it
// again.
type ConnectToggle struct {
	app.Compo
	mounted

	Server wire.Server

	busy    string // "Connecting…" or "Disconnecting…" while the op runs
	problem string
}

// Render implements app.Composer.
func (t *ConnectToggle) Render() app.UI {
	s := t.Server
	label := choose(s.Disconnected, "Connect", "Disconnect")
	return app.Span().Class("connect-toggle").Body(
		disabledIf(app.Button().ID("toggle-connect").Class("sb-button").Type("button"), t.busy != "").
			Aria("pressed", !s.Disconnected).Text(choose(t.busy != "", t.busy, label)).
			OnClick(func(ctx app.Context, e app.Event) { t.toggle(!t.Server.Disconnected) }),
		app.Span().Class("sb-error").Role("alert").Text(t.problem),
	)
}

func (t *ConnectToggle) toggle(disconnect bool) {
	t.busy, t.problem = choose(disconnect, "Disconnecting…", "Connecting…"), ""
	send(wire.OpSetServerConnected, wire.SetServerConnectedArgs{Server: t.Server.ID, Connected: !disconnect}, func(r store.Reply) {
		t.later(func(app.Context) {
			t.busy = ""
			if r.Err != nil {
				t.problem = opFailure("Could not change the connection: ", r.Err)
			}
		})
	})
}
