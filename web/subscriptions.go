package web

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// subscriptionView is the view state of a resource list's subscriptions:
// the ops in flight and the last failure.
type subscriptionView struct {
	mounted
	busy    map[string]bool // URIs whose subscribe or unsubscribe is in flight
	problem string
}

// subscription returns the subscription to uri, if there is one.
func (t *ResourcesTab) subscription(uri string) (wire.Subscription, bool) {
	for _, s := range t.Subscriptions {
		if s.URI == uri {
			return s, true
		}
	}
	return wire.Subscription{}, false
}

// subscribeButton is Subscribe or Unsubscribe for uri: Subscribe only when
// the server offers subscriptions, Unsubscribe whenever one is kept.
func (t *ResourcesTab) subscribeButton(uri, title string) app.UI {
	_, on := t.subscription(uri)
	if !on && !t.Capabilities.CanSubscribe() {
		return app.Text("")
	}
	// The words say what a press does; a pressed state besides them would
	// be read out as "Unsubscribe, pressed".
	label := choose(on, "Unsubscribe", "Subscribe")
	return disabledIf(app.Button().Class("resource-subscribe", "sb-button").Type("button"), t.busy[uri]).
		DataSet("subscribed", on).
		Aria("label", label+choose(on, " from ", " to ")+title).Text(label).
		OnClick(func(ctx app.Context, e app.Event) { t.toggle(uri, !on) }, app.EventScope(uri+label))
}

// toggle subscribes to uri or ends its subscription.
func (t *ResourcesTab) toggle(uri string, on bool) {
	c := relay()
	if c == nil {
		return
	}
	if t.busy == nil {
		t.busy = map[string]bool{}
	}
	t.busy[uri], t.problem = true, ""
	done := func(e *wire.Error) {
		t.later(func(app.Context) {
			delete(t.busy, uri)
			if e != nil {
				t.problem = opFailure(choose(on, "Could not subscribe: ", "Could not unsubscribe: "), e)
			}
		})
	}
	if on {
		c.Subscribe(t.ServerID, uri, done)
	} else {
		c.Unsubscribe(t.ServerID, uri, done)
	}
}

// renderUpdated marks a subscribed resource: when it last changed, or why
// it could not be subscribed to again.
func (t *ResourcesTab) renderUpdated(uri string) app.UI {
	sub, ok := t.subscription(uri)
	switch {
	case !ok:
		return app.Text("")
	case sub.Error != "":
		return app.P().Class("subscription-error", "sb-error").Text(sub.Error)
	case sub.Updated != "":
		return app.P().Class("resource-updated").Role("status").Text("Updated " + localTime(sub.Updated))
	default:
		return app.P().Class("resource-subscribed", "item-meta").Text("Subscribed: changes are read again as they come.")
	}
}

// renderSubscriptions lists the subscriptions to resources the list does
// not show (read through a template, or no longer listed), so that every
// subscription can be ended, and the last failure.
func (t *ResourcesTab) renderSubscriptions() app.UI {
	var others []wire.Subscription
	for _, s := range t.Subscriptions {
		if !t.listed(s.URI) {
			others = append(others, s)
		}
	}
	return app.Div().Class("subscriptions").Body(
		app.P().Class("subscribe-error", "sb-error").Role("alert").Text(t.problem),
		hiddenIf(app.H3().Class("list-title"), len(others) == 0).Text("Other subscriptions"),
		app.Ul().Class("subscription-list", "item-list").Body(
			app.Range(others).Slice(func(i int) app.UI {
				uri := others[i].URI
				return app.Li().Class("subscription-item", "item").DataSet("resource-uri", uri).Body(
					app.Div().Class("item-row").Body(
						app.Span().Class("item-key").Text(uri),
						app.Div().Class("item-actions").Body(
							app.Button().Class("resource-read", "sb-button").Type("button").
								Aria("label", "Read "+uri).Text("Read").
								OnClick(func(ctx app.Context, e app.Event) {
									if c := relay(); c != nil {
										c.ReadResource(t.ServerID, uri)
									}
								}, app.EventScope(uri)),
							t.subscribeButton(uri, uri),
						),
					),
					t.renderUpdated(uri),
				)
			}),
		),
	)
}

// listed reports whether uri is in the resource list.
func (t *ResourcesTab) listed(uri string) bool {
	for _, r := range t.Resources {
		if r.URI == uri {
			return true
		}
	}
	return false
}

// localTime shows an RFC 3339 time as the browser's local clock time.
func localTime(rfc3339 string) string {
	at, err := time.Parse(time.RFC3339Nano, rfc3339)
	if err != nil {
		return rfc3339
	}
	return at.Local().Format("15:04:05")
}
