package web

import (
	"slices"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// renderCalls lists calls, newest first: pending ones with their progress
// and a Cancel button, finished ones with their result or error.
func renderCalls(title string, calls []store.Call) app.UI {
	return &CallList{Title: title, Calls: calls}
}

// renderToolCalls lists a server's tool calls; a call of a tool with an
// App view offers to show it (onShow gets the call's id).
func renderToolCalls(title string, calls []store.Call, tools []wire.Tool, onShow func(id string)) app.UI {
	return &CallList{Title: title, Calls: calls, Tools: tools, OnShowView: onShow}
}

// maxRecent is how many new calls the list holds apart before it takes
// them into the rest.
const maxRecent = 8

// CallList is a list of calls, newest first, in two parts: the calls made
// since the list last settled, and the rest.
//
// go-app matches children by position, so a call put first moves every
// item after it to another place, where it is remounted (see [CallItem]):
// with a hundred results shown, that is most of a click's time. New calls
// go into the small first part, so the rest stays where it is; once more
// than maxRecent came, the list settles, taking them all into the rest at once.
type CallList struct {
	app.Compo

	Title      string
	Calls      []store.Call
	Tools      []wire.Tool       // the server's tools, for their views
	OnShowView func(call string) // shows the view of a call; nil: no views

	settled string // the newest call of the rest; the calls before it are recent
}

// Render implements app.Composer.
func (l *CallList) Render() app.UI {
	var recent, rest []store.Call
	recent, rest, l.settled = splitCalls(l.Calls, l.settled)
	return hiddenIf(app.Section().Class("calls").Aria("label", l.Title), len(l.Calls) == 0).Body(
		app.H3().Class("calls-title").Text(l.Title),
		hiddenIf(app.Ol().Class("call-list", "is-recent"), len(recent) == 0).Body(
			app.Range(recent).Slice(func(i int) app.UI { return l.item(recent[i]) }),
		),
		app.Ol().Class("call-list").Body(
			app.Range(rest).Slice(func(i int) app.UI { return l.item(rest[i]) }),
		),
	)
}

// item is the list's item of call c, with its tool when it has a view.
func (l *CallList) item(c store.Call) app.UI {
	it := &CallItem{Call: c}
	if l.OnShowView != nil && hasView(c, l.Tools) {
		it.OnShowView = l.OnShowView
	}
	return it
}

// hasView says whether call c is a finished call of a tool with an App view
// that a person made (a view's own calls show in the view itself).
func hasView(c store.Call, tools []wire.Tool) bool {
	if c.Kind != wire.CallKindTool || c.App != "" || c.Tool == nil || c.Status == store.CallPending || appsOrigin() == "" {
		return false
	}
	return slices.ContainsFunc(tools, func(t wire.Tool) bool { return t.Name == c.Name && t.UI != nil && t.UI.ResourceURI != "" })
}

// splitCalls splits calls, newest first, before the call settled (the
// newest of the rest when the list last settled). When that call is gone,
// or more than maxRecent calls came since, the list settles: all calls are
// the rest, and their newest is the call to split before next time.
func splitCalls(calls []store.Call, settled string) (recent, rest []store.Call, newSettled string) {
	i := slices.IndexFunc(calls, func(c store.Call) bool { return c.ID == settled })
	if i < 0 || i > maxRecent {
		if len(calls) == 0 {
			return nil, nil, ""
		}
		return nil, calls, calls[0].ID
	}
	return calls[:i], calls[i:], settled
}

var callStatusWords = map[store.CallStatus]string{
	store.CallPending: "Running…",
	store.CallOK:      "Done",
	store.CallError:   "Failed",
}

// callStatusWord is what a call's head says about its state.
func callStatusWord(c store.Call) string {
	if c.Code == wire.CodeCancelled {
		return "Cancelled"
	}
	return callStatusWords[c.Status]
}

// CallItem is one call in a list. Its head is a live region, so the
// outcome (Running… → Done, Failed, Cancelled) is read out.
//
// go-app matches children by position, and a new call comes first: as a
// component known by its call, not by its place in the list, an item is
// remounted rather than rewritten when the calls move down, so a status is
// announced only when its own call changes, and a focused Cancel button
// never turns into another call's.
type CallItem struct {
	app.Compo

	Call       store.Call
	OnShowView func(call string) // set when the call has a view to show
}

// CompoID keeps an item with its call.
func (i *CallItem) CompoID() string { return i.Call.ID }

// Render implements app.Composer.
func (i *CallItem) Render() app.UI {
	c := i.Call
	li := app.Li().Class("call-result").DataSet("status", string(c.Status)).DataSet("call-id", c.ID)
	if c.Kind == wire.CallKindTool {
		li = li.DataSet("tool-name", c.Name)
	}
	return li.Body(
		app.Div().Class("call-head").Role("status").Body(
			app.Span().Class("call-name").Text(c.Name),
			app.Span().Class("call-status").Text(callStatusWord(c)),
			app.If(c.App != "", func() app.UI {
				return app.Span().Class("call-by-app", "sb-note").Title("%s", c.App).Text("by the app")
			}),
			app.If(c.Elsewhere, func() app.UI {
				return app.Span().Class("call-origin", "sb-note").Text("started in another tab or before a reload")
			}),
			app.If(i.OnShowView != nil, func() app.UI {
				id := c.ID
				return app.Button().Type("button").Class("call-show-view", "sb-button", "is-quiet").Text("Show its view").
					OnClick(func(ctx app.Context, e app.Event) { i.OnShowView(id); ctx.Update() }, app.EventScope(id))
			}),
		),
		renderCallBody(c),
	)
}

func renderCallBody(c store.Call) app.UI {
	if c.Tool != nil && c.Status != store.CallPending {
		return renderToolResult(c)
	}
	switch c.Status {
	case store.CallPending:
		return renderPending(c)
	case store.CallOK:
		if len(c.Contents) > 0 {
			return renderCallContents(c)
		}
		return app.Div().Class("call-body").Body(
			renderCallTask(c.Task),
			app.If(c.Text != "", func() app.UI {
				return app.Pre().Class("result-text", "code-block").Text(c.Text)
			}).Else(func() app.UI {
				return app.P().Class("result-text", "is-empty").Text("No text content.")
			}),
			renderJSON(c.JSON),
		)
	default:
		return app.Div().Class("call-body").Body(
			app.P().Class("result-error").Text(c.Error),
			app.If(c.Code != "", func() app.UI {
				return app.P().Class("result-code").Text("Error code: " + c.Code)
			}),
			renderCallRetry(c),
			app.If(c.JSON != "", func() app.UI { return renderJSON(c.JSON) }),
		)
	}
}

// renderPending shows a spinner, the progress reported, if any, and Cancel.
func renderPending(c store.Call) app.UI {
	id := c.ID
	p := c.Progress
	return app.Div().Class("call-body", "call-pending").Body(
		app.Span().Class("spinner").Aria("hidden", "true"),
		app.If(p != nil && p.Total > 0, func() app.UI {
			return app.Progress().Class("call-progress").Max(p.Total).Value(p.Progress).
				Aria("label", "Progress")
		}),
		app.If(p != nil, func() app.UI {
			return app.Span().Class("call-progress-text").Text(progressText(p.Progress, p.Total, p.Message))
		}),
		renderCallTask(c.Task),
		disabledIf(app.Button().Class("cancel-call", "sb-button").Type("button"), c.Cancel).
			Text(choose(c.Cancel, "Cancelling…", "Cancel")).
			OnClick(func(ctx app.Context, e app.Event) {
				if r := relay(); r != nil {
					r.Cancel(id)
				}
			}, app.EventScope(id)),
		app.If(c.CancelErr != nil, func() app.UI {
			return app.P().Class("cancel-error", "sb-error").Role("alert").Text(opFailure("Could not cancel: ", c.CancelErr))
		}),
	)
}

// renderJSON shows a whole result as indented JSON, open by default.
func renderJSON(text string) app.UI {
	return app.Details().Class("result-details").Open(true).Body(
		app.Summary().Text("Full result (JSON)"),
		app.Pre().Class("result-json", "code-block").Text(text),
	)
}

// progressText is "3 of 10 — message", "3 — message" without a total, or the message alone.
func progressText(progress, total float64, message string) string {
	n := strconv.FormatFloat(progress, 'f', -1, 64)
	s := n
	if total > 0 {
		s = n + " of " + strconv.FormatFloat(total, 'f', -1, 64)
	}
	if message != "" {
		s += " — " + message
	}
	return s
}
