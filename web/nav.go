package web

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// Paths of the dashboard's pages.
const (
	ServersPath  = "/"
	AgentsPath   = "/agents"
	ActivityPath = "/activity"
)

// renderNav links the dashboard's pages, marking the one shown.
func renderNav(current string) app.UI {
	link := func(path, text string) app.UI {
		a := app.A().Class("sb-nav-link").Href(path).Text(text)
		if path == current {
			a = a.Aria("current", "page")
		}
		return app.Li().Body(a)
	}
	return app.Nav().ID("pages").Class("sb-nav").Aria("label", "Pages").Body(
		app.Ul().Body(
			link(ServersPath, "Servers"),
			link(ChatPath, "Chat"),
			link(AgentsPath, "Agents"),
			link(ActivityPath, "Agent activity"),
		),
	)
}

// pageRoutes registers the chat and the agent pages beside the dashboard.
func pageRoutes() {
	app.Route(ChatPath, func() app.Composer { return &ChatPage{} })
	app.Route(AgentsPath, func() app.Composer { return &AgentsPage{} })
	app.Route(ActivityPath, func() app.Composer { return &ActivityPage{} })
	app.Route(ConsentPath, func() app.Composer { return &ConsentPage{} })
}

// connectPage connects a page to the relay like the dashboard does, calling
// changed (on the UI goroutine, a burst of changes at once) after each change.
func connectPage(ctx app.Context, changed func(app.Context)) {
	scheduled := make(chan struct{}, 1)
	connectRelay(func() {
		select {
		case scheduled <- struct{}{}:
			ctx.Dispatch(func(ctx app.Context) {
				<-scheduled
				changed(ctx)
				relayChanged()
			})
		default:
		}
	})
	changed(ctx)
}
