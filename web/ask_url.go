package web

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/urlsafe"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// URLAskCard is a server's request to open a URL: the host large, the
// whole URL as text below it, warnings about look-alike host names, and an
// Open button that opens the URL only when clicked. The page never fetches
// the URL by itself: no link, no prefetch, no image of it. A URL that may
// not be opened is declined at once, with the reason shown; one the relay
// refused itself ([wire.AskRefused]) comes without its URL and shows only
// the reason and a Dismiss button.
type URLAskCard struct {
	app.Compo

	Ask    wire.Ask
	Status store.AskStatus
	Live   bool // the refusal of an unsafe URL waits for a live connection
}

// CompoID keeps a card with its ask.
func (c *URLAskCard) CompoID() string { return c.Ask.ID }

// OnMount declines a URL that may not be opened.
func (c *URLAskCard) OnMount(ctx app.Context) { c.refuseUnsafe() }

// OnUpdate declines a URL that may not be opened.
func (c *URLAskCard) OnUpdate(ctx app.Context) { c.refuseUnsafe() }

func (c *URLAskCard) refuseUnsafe() {
	if !c.Live || c.Ask.State != wire.AskPending {
		return
	}
	if _, err := urlsafe.CheckOpenable(c.Ask.URL); err != nil {
		if r := relay(); r != nil {
			r.RefuseAsk(c.Ask.ID, refusalText(err))
		}
	}
}

// Render implements app.Composer.
func (c *URLAskCard) Render() app.UI {
	a, st := c.Ask, c.Status
	if a.State == wire.AskRefused {
		return c.renderRefused()
	}
	host, err := urlsafe.CheckOpenable(a.URL)
	shownHost := host
	if err != nil {
		shownHost = roughHost(a.URL)
	}
	var warnings []string
	if shownHost != "" {
		warnings = urlsafe.HostWarnings(shownHost)
	}
	what := "asks you to open a web page"
	if a.State == wire.AskWaiting {
		what = "is waiting for you to finish on a web page"
	}
	return askCard(a, wire.AskURL).Body(
		renderAskHead(a, what),
		renderAskMessage(a),
		app.Div().Class("ask-target").Body(
			app.P().Class("ask-host-label").Text("Site"),
			app.P().Class("ask-host").Text(choose(shownHost != "", shownHost, "(no host)")),
			app.If(shownHost != "" && asciiHost(shownHost) != shownHost, func() app.UI {
				return app.P().Class("ask-host-ascii").Text(asciiHost(shownHost))
			}),
			app.P().Class("ask-url-label").Text("Full address"),
			app.P().Class("ask-url").Text(a.URL),
		),
		app.If(len(warnings) > 0, func() app.UI {
			return app.Ul().Class("ask-warnings").Aria("label", "Check the address").Body(
				app.Range(warnings).Slice(func(i int) app.UI {
					return app.Li().Class("ask-warning").Text("Check the address: " + warnings[i] + ".")
				}),
			)
		}),
		app.If(err != nil, func() app.UI {
			return app.P().Class("ask-refused").Role("alert").Text(refusalText(err))
		}),
		renderAskError(st),
		c.renderActions(host, err == nil),
	)
}

// renderRefused is the card of an ask the relay refused and declined: the
// server, its message and the relay's reason, and a Dismiss button; no URL.
func (c *URLAskCard) renderRefused() app.UI {
	a, st := c.Ask, c.Status
	return askCard(a, wire.AskURL).Body(
		app.Header().Class("ask-head").Body(
			app.H2().ID(askTitleID(a.ID)).Class("ask-title").Body(
				app.Span().Class("ask-server").Text(serverNameOf(a)),
				app.Span().Class("ask-what").Text("asked you to open a web page"),
			),
		),
		renderAskMessage(a),
		app.P().Class("ask-refused").Role("alert").Text(refusedText(a.Refusal)),
		renderAskError(st),
		app.Div().Class("ask-actions").Body(
			askButton("ask-dismiss", "Dismiss", st, store.AskDismiss).
				OnClick(func(ctx app.Context, e app.Event) { c.dismiss() }, app.EventScope(a.ID)),
		),
	)
}

// renderActions are Open, Decline and Cancel while pending; Open again,
// Stop waiting and, when the server said the URL must be completed, I've
// finished while waiting. A refused URL gets only Decline and Cancel.
func (c *URLAskCard) renderActions(host string, openable bool) app.UI {
	a, st := c.Ask, c.Status
	id := a.ID
	if a.State == wire.AskWaiting {
		return app.Div().Class("ask-actions").Body(
			app.If(openable, func() app.UI {
				return askButton("ask-retry", "Open "+hostLabel(host)+" again", st, "").Class("is-primary").
					OnClick(func(ctx app.Context, e app.Event) { openExternal(a.URL) }, app.EventScope(id))
			}),
			app.If(a.From == wire.AskFromURLRequired, func() app.UI {
				return askButton("ask-done", "I've finished", st, store.AskComplete).
					OnClick(func(ctx app.Context, e app.Event) { c.complete() }, app.EventScope(id))
			}),
			askButton("ask-dismiss", "Stop waiting", st, store.AskDismiss).Class("is-quiet").
				OnClick(func(ctx app.Context, e app.Event) { c.dismiss() }, app.EventScope(id)),
		)
	}
	return app.Div().Class("ask-actions").Body(
		app.If(openable, func() app.UI {
			return askButton("ask-open", "Open "+hostLabel(host), st, string(wire.ActionAccept)).Class("is-primary").
				OnClick(func(ctx app.Context, e app.Event) { c.open() }, app.EventScope(id))
		}),
		askButton("ask-decline", "Decline", st, string(wire.ActionDecline)).
			Title("Tell the server you will not open this page").
			OnClick(func(ctx app.Context, e app.Event) { c.answer(wire.ActionDecline) }, app.EventScope(id)),
		askButton("ask-cancel", "Cancel", st, string(wire.ActionCancel)).Class("is-quiet").
			Title("Close the request without answering").
			OnClick(func(ctx app.Context, e app.Event) { c.answer(wire.ActionCancel) }, app.EventScope(id)),
	)
}

// open opens the URL, in the click that asked for it, and accepts.
func (c *URLAskCard) open() {
	if !openExternal(c.Ask.URL) {
		return
	}
	c.answer(wire.ActionAccept)
}

func (c *URLAskCard) answer(action wire.Action) {
	if r := relay(); r != nil {
		r.AnswerAsk(c.Ask.ID, action, nil)
	}
}

func (c *URLAskCard) dismiss() {
	if r := relay(); r != nil {
		r.DismissAsk(c.Ask.ID)
	}
}

func (c *URLAskCard) complete() {
	if r := relay(); r != nil {
		r.CompleteAsk(c.Ask.ID)
	}
}

// openExternal opens url in a new tab that gets neither this page as its
// opener nor its address as referrer; it reports false, opening nothing,
// when the URL may not be opened.
func openExternal(url string) bool {
	if _, err := urlsafe.CheckOpenable(url); err != nil {
		return false
	}
	app.Window().Call("open", url, "_blank", "noopener,noreferrer")
	return true
}

// refusalText says why a URL is not opened and what happened instead.
func refusalText(err error) string {
	why := strings.TrimPrefix(strings.TrimPrefix(err.Error(), urlsafe.ErrNotOpenable.Error()), ": ")
	return "Switchboard will not open this address: " + why + ". The request is declined."
}

// refusedText says why the relay refused a URL ask (the reason it sent,
// "URL refused: ..."), and that the server was told no.
func refusedText(reason string) string {
	why := strings.TrimPrefix(strings.TrimPrefix(reason, urlsafe.ErrNotOpenable.Error()), ": ")
	if why == "" {
		why = "it may not be opened"
	}
	return "Switchboard did not show or open the address this server sent: " + why + ". The request was declined."
}

// roughHost is the host part of a URL that failed the checks, for
// showing only: what lies between "//" and the next "/", "?" or "#".
func roughHost(raw string) string {
	_, rest, ok := strings.Cut(raw, "//")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		rest = rest[i+1:]
	}
	if i := strings.LastIndex(rest, ":"); i >= 0 && !strings.Contains(rest[i:], "]") {
		rest = rest[:i]
	}
	return strings.ToLower(rest)
}

// asciiHost is host as the network knows it: punycode for labels that are
// not ASCII.
func asciiHost(host string) string {
	ascii, _ := urlsafe.HostForms(host)
	return ascii
}

// hostLabel names host on a button: as it reads, with its ASCII form
// beside when that differs, as browsers show a look-alike name.
func hostLabel(host string) string {
	if ascii := asciiHost(host); ascii != host {
		return host + " (" + ascii + ")"
	}
	return host
}
