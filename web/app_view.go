package web

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"golang.org/x/time/rate"

	"github.com/switchboard-mcp/switchboard/shared/urlsafe"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// AppsOriginEnv is the go-app environment variable that names the origin
// of the Apps sandbox proxy; "" means Apps are off.
const AppsOriginEnv = "SWITCHBOARD_APPS_ORIGIN"

// appsOrigin is the origin the page frames views on; "" when Apps are off.
func appsOrigin() string { return app.Getenv(AppsOriginEnv) }

// maxViewInbox is how many messages of a view may wait for the bridge; a
// view that sends more loses them.
const maxViewInbox = 256

// maxViewMessages is how many messages of a view the page takes each
// second, and drops the rest unread; the proxy passes no more, counted as
// the view posts them (sandbox.js).
const maxViewMessages = 50

// A view has nothing to post to the page itself: its messages go to its
// proxy, which alone may speak to the page. What it posts to the page
// past its proxy (top.postMessage) is dropped, and a view that posts more
// than strayBurst such messages at once, or more than strayRate a second
// for long, is stopped: the proxy's own caps (sandbox.js), counted by the
// page, which the proxy cannot see.
const (
	strayBurst = 200
	strayRate  = 50
)

// resizeSettle is how long a view that fills the window is measured after
// the window's size changes: a window being resized changes it many times,
// some through sizes it does not stop at.
const resizeSettle = 150 * time.Millisecond

// maxFrameDepth is how deep in its proxy a frame that posts to the page is
// looked for: the view, and frames the view made.
const maxFrameDepth = 8

// States of a view.
const (
	viewLoading = "loading"
	viewReady   = "ready"
	viewFailed  = "failed"
)

// renderToolOutcome is a finished tool call's result: its App view when
// the tool has one and Apps are on, with a toggle to the raw result; else
// the raw result.
func renderToolOutcome(c store.Call, tool *wire.Tool, serverName, chat string) app.UI {
	early := chat != "" && c.Status == store.CallPending // a chat's call shows its view as it forms
	if tool == nil || tool.UI == nil || tool.UI.ResourceURI == "" || appsOrigin() == "" || (c.Tool == nil && !early) {
		return renderToolResult(c)
	}
	return &AppView{Server: c.Server, ServerName: serverName, URI: tool.UI.ResourceURI, Tool: *tool, Call: c, Chat: chat}
}

// AppView is a tool's App view, where the call's result shows: framed on
// the Apps origin (the sandbox proxy, which frames the view in turn), under
// a head that names the server, so a person can tell it is the server's
// content. The view talks to the page only through the bridge; what it
// asks (tool calls, reads, links, messages) passes the rules of a person's
// own action.
type AppView struct {
	app.Compo
	mounted

	Server     string
	ServerName string
	URI        string
	Tool       wire.Tool
	Call       store.Call // the call the view shows: its arguments and result
	Chat       string     // the conversation the view lives in; "" elsewhere

	raw      bool            // the raw result is shown instead
	full     bool            // the view fills the window, at its request (see displayMode)
	askFull  func(string)    // answers the view's ask to fill the window, while the person has not
	onFull   windowListeners // Escape and the window's size, while the view fills the window
	resizing bool            // a measure after a resize is due
	state    string          // viewLoading, viewReady (the view is initialized) or viewFailed
	problem  string          // why the view failed
	again    bool            // the read that failed may succeed if tried again
	waiting  bool            // the read lost the relay's socket: it is sent again once a new one is live
	lostOn   int             // the socket the waiting read was lost on; -1 when it was never sent
	view     *wire.AppView
	bridge   *appBridge
	work     chan func(*appBridge) // the bridge's goroutine takes its work here
	sent     *wire.CallToolResult  // the result handed to the bridge
	input    callInput             // the arguments handed to the bridge
	listen   app.Func              // the page's message listener
	themes   app.Value
	onTheme  app.Func
	flooded  bool          // the view sent more than a view may, and was stopped: its frame is gone
	strays   *rate.Limiter // what the view may post to the page past its proxy
	halted   bool          // the view flooded: the page no longer listens for it
	decided  bool          // the person answered the view's ask for permissions
	granted  wire.AppPermissions
	link     string // a link the view asks to open, waiting for the person
	answer   func(bool)
	notice   string // what the last link or message did
	gone     bool   // dismounted: a read that comes later starts nothing

	window   time.Time // the start of the second whose messages are counted
	inWindow int       // the view's messages in that second
}

// CompoID keeps a view with its call.
func (v *AppView) CompoID() string { return v.Call.ID + "\n" + v.URI }

// frameID is the id of the view's frame.
func (v *AppView) frameID() string { return "app-frame-" + v.Call.ID }

// OnMount reads the view through the relay.
func (v *AppView) OnMount(ctx app.Context) {
	v.mounted.OnMount(ctx)
	if !app.IsClient {
		return
	}
	v.read()
}

// read reads the view through the relay.
func (v *AppView) read() {
	v.state, v.problem, v.again, v.waiting = viewLoading, "", false, false
	delete(viewsAwaitingRelay, v)
	socket := currentView().Socket
	send(wire.OpReadApp, wire.ReadAppArgs{Server: v.Server, URI: v.URI}, func(r store.Reply) {
		v.later(func(app.Context) { v.loaded(r, socket) })
	})
}

// loaded starts the view the relay read on socket, or says why it could not.
func (v *AppView) loaded(r store.Reply, socket int) {
	if v.gone {
		return
	}
	if r.Err != nil && (r.Err.Code == store.CodeConnectionLost || r.Err.Code == store.CodeOffline) {
		v.waiting, v.lostOn = true, socket
		if r.Err.Code == store.CodeOffline {
			v.lostOn = -1
		}
		viewsAwaitingRelay[v] = true
		v.readAgain()
		return
	}
	if r.Err != nil {
		v.state, v.problem = viewFailed, opFailure("The view could not be shown: ", r.Err)
		v.again = r.Err.Code == wire.CodeNotReady || r.Err.Code == wire.CodeConnectionLost || r.Err.Code == wire.CodeTimeout
		return
	}
	var view wire.AppView
	if err := json.Unmarshal(r.Data, &view); err != nil {
		v.state, v.problem = viewFailed, "The view could not be shown: the relay's answer could not be read."
		return
	}
	v.view = &view // ready once the view says it is initialized
	bridge := &appBridge{host: v, view: view, tool: v.Tool, result: v.Call.Tool,
		args: v.Call.Arguments, streaming: v.Call.Streaming, partial: v.Call.PartialArguments,
		ctx: appContext{Theme: pageTheme(), Locale: navigatorString("language"), TimeZone: timeZone()}}
	v.bridge, v.sent = bridge, v.Call.Tool
	v.input = inputOf(v.Call)
	// The bridge works on a goroutine of its own, one message after the
	// other: not in the browser's event callback, where sending an op
	// could block the event loop it waits on, and not on the UI
	// goroutine, where each message would render the view again.
	work := make(chan func(*appBridge), maxViewInbox)
	v.work = work
	go func() {
		for f := range work {
			f(bridge)
		}
	}()
	v.listen = app.FuncOf(func(_ app.Value, args []app.Value) any {
		if len(args) > 0 {
			v.onMessage(args[0])
		}
		return nil
	})
	v.strays = rate.NewLimiter(strayRate, strayBurst)
	app.Window().Call("addEventListener", "message", v.listen)
	v.themes = app.Window().Call("matchMedia", "(prefers-color-scheme: dark)")
	v.onTheme = app.FuncOf(func(app.Value, []app.Value) any {
		theme := pageTheme()
		v.do(func(b *appBridge) { b.setTheme(theme) })
		return nil
	})
	v.themes.Call("addEventListener", "change", v.onTheme)
}

// OnUpdate tells the view the arguments and the result that came after it
// started.
func (v *AppView) OnUpdate(ctx app.Context) {
	if in := inputOf(v.Call); v.bridge != nil && in != v.input {
		v.input = in
		args := v.Call.Arguments
		v.do(func(b *appBridge) { b.setInput(args, in.partial, in.streaming) })
	}
	if v.bridge != nil && v.Call.Tool != nil && v.Call.Tool != v.sent {
		result := v.Call.Tool
		v.sent = result
		v.do(func(b *appBridge) { b.setOutcome(result) })
	}
}

// viewsAwaitingRelay are the views whose read lost the relay's socket. It
// is used on the UI goroutine only.
var viewsAwaitingRelay = map[*AppView]bool{}

// relayChanged has the views whose read lost the relay's socket look at
// the relay again; the pages call it, on the UI goroutine, after each burst
// of changes from the relay.
func relayChanged() {
	for v := range viewsAwaitingRelay {
		v.later(func(app.Context) { v.readAgain() })
	}
}

// readAgain sends a read that lost the relay's socket again, once a socket
// other than the one it was lost on is live and the server is no longer
// connecting (a relay that restarted connects its servers again).
func (v *AppView) readAgain() {
	if !v.waiting || v.gone {
		return
	}
	relay := currentView()
	if relay.Status != store.StatusLive || relay.Socket == v.lostOn {
		return
	}
	switch serverState(relay, v.Server) {
	case wire.StateConnecting, wire.StateConnected, wire.StateDiscovering:
		return
	}
	v.read()
}

// serverState is the state of server in the relay's view; "" if unknown.
func serverState(relay store.View, server string) wire.ServerState {
	for _, s := range relay.Snapshot.Servers {
		if s.ID == server {
			return s.State
		}
	}
	return ""
}

// callInput is what the view knows of a call's arguments.
type callInput struct {
	args      string
	partial   string
	streaming bool
}

func inputOf(c store.Call) callInput {
	return callInput{args: string(c.Arguments), partial: c.PartialArguments, streaming: c.Streaming}
}

// do hands f to the bridge's goroutine; it is dropped when the view has
// more waiting than maxViewInbox (it floods) or is gone.
func (v *AppView) do(f func(*appBridge)) {
	if v.work == nil {
		return
	}
	select {
	case v.work <- f:
	default:
	}
}

// OnDismount tells the view it goes away and stops listening.
func (v *AppView) OnDismount() {
	v.gone = true
	delete(viewsAwaitingRelay, v)
	if v.work != nil {
		v.do(func(b *appBridge) { b.teardown() })
		close(v.work)
		v.work = nil
	}
	if v.listen != nil {
		app.Window().Call("removeEventListener", "message", v.listen)
		v.listen.Release()
		v.listen = nil
	}
	if v.onTheme != nil {
		v.themes.Call("removeEventListener", "change", v.onTheme)
		v.onTheme.Release()
		v.onTheme = nil
	}
	v.onFull.stop()
	if v.askFull != nil {
		v.askFull(v.displayed())
		v.askFull = nil
	}
	if v.answer != nil {
		v.answer(false)
		v.answer = nil
	}
}

// onMessage takes a message event: only one from this view's proxy frame
// reaches the bridge. The proxy's document has an opaque origin (its frame
// is sandboxed without allow-same-origin), so its messages come from origin
// "null": the source, the frame's own window, is what tells them apart, and
// no other document can post as it. A message from a frame inside the
// proxy (the view posting to top past its proxy) is dropped and counted:
// a view that floods the page so is stopped.
func (v *AppView) onMessage(ev app.Value) {
	if v.halted {
		return
	}
	frame := app.Window().GetElementByID(v.frameID())
	if !frame.Truthy() {
		return
	}
	proxy, source := frame.Get("contentWindow"), ev.Get("source")
	if !source.Equal(proxy) {
		if inside(source, proxy) && !v.strays.Allow() {
			v.halt()
		}
		return
	}
	if ev.Get("origin").String() != "null" {
		return
	}
	data := ev.Get("data")
	if data.Type() != app.TypeObject {
		return
	}
	if m := data.Get("method"); m.Type() == app.TypeString && m.String() == mFlood {
		v.halt()
		return
	}
	// Counted before any work: a view that sends more than the page takes
	// costs it almost nothing.
	now := time.Now()
	if now.Sub(v.window) >= time.Second {
		v.window, v.inWindow = now, 0
	}
	if v.inWindow++; v.inWindow > maxViewMessages {
		return
	}
	raw := app.Window().Get("JSON").Call("stringify", data).String()
	v.do(func(b *appBridge) { b.handle([]byte(raw), now) })
}

// halt stops a flooding view: its proxy's frame goes with the next render,
// and the page stops listening for it at once. What the view posted to the
// page meanwhile, the browser still hands over, maybe thousands of
// messages: with no listener of the view's, they cost the page almost
// nothing.
func (v *AppView) halt() {
	v.halted = true
	app.Window().Call("removeEventListener", "message", v.listen)
	v.suspend()
}

// inside says whether the window w is a frame inside proxy's window (the
// view, or a frame the view made), up to maxFrameDepth deep. A window's
// parent is readable across origins.
func inside(w, proxy app.Value) bool {
	for range maxFrameDepth {
		if !w.Truthy() {
			return false
		}
		parent := w.Get("parent")
		if parent.Equal(proxy) {
			return true
		}
		if parent.Equal(w) { // the top window
			return false
		}
		w = parent
	}
	return false
}

// post implements appHost. The target origin is "*": the proxy's document
// has an opaque origin, which no target origin names. Only the proxy can be
// in that frame: the page's frame-src allows only the Apps origin, and
// only the page and the proxy itself may navigate the frame (the view's
// sandbox has no top navigation, and a sandboxed frame navigates no frame
// but its own and those inside it).
func (v *AppView) post(msg rpcMessage) {
	frame := app.Window().GetElementByID(v.frameID())
	if !frame.Truthy() {
		return
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return
	}
	data := app.Window().Get("JSON").Call("parse", string(b))
	frame.Get("contentWindow").Call("postMessage", data, "*")
}

// callTool implements appHost: the call goes through the relay as the
// view's, and shows in the calls as made by the app.
func (v *AppView) callTool(name string, args json.RawMessage, done func(json.RawMessage, *wire.Error)) {
	c := relay()
	if c == nil {
		done(nil, &wire.Error{Code: store.CodeOffline, Message: "not connected to the relay"})
		return
	}
	c.CallToolFrom(v.URI, v.Server, name, args, func(r store.Reply) {
		v.later(func(app.Context) { done(r.Data, r.Err) })
	})
}

// readResource implements appHost.
func (v *AppView) readResource(uri string, done func(json.RawMessage, *wire.Error)) {
	send(wire.OpReadResource, wire.ReadResourceArgs{Server: v.Server, URI: uri}, func(r store.Reply) {
		v.later(func(app.Context) { done(r.Data, r.Err) })
	})
}

// log implements appHost.
func (v *AppView) log(level, logger string, data any) {
	send(wire.OpAppLog, wire.AppLogArgs{Server: v.Server, URI: v.URI, Level: level, Logger: logger, Data: data}, func(store.Reply) {})
}

// openLink implements appHost: the link waits for the person's Open.
func (v *AppView) openLink(url string, answer func(bool)) error {
	if _, err := urlsafe.CheckOpenable(url); err != nil {
		return err
	}
	v.later(func(app.Context) {
		if v.answer != nil {
			v.answer(false) // one link at a time: the newer replaces the older
		}
		v.link, v.answer = url, answer
	})
	return nil
}

// message implements appHost: the text goes into the conversation's
// message box, for the person to send.
func (v *AppView) message(text string) error {
	if v.Chat == "" {
		return errors.New("this view is not in a conversation")
	}
	box := app.Window().Get("document").Call("querySelector", "textarea.chat-input")
	if !box.Truthy() {
		return errors.New("the conversation is not open")
	}
	box.Set("value", text)
	box.Call("dispatchEvent", app.Window().Get("Event").New("input", map[string]any{"bubbles": true}))
	v.later(func(app.Context) { v.notice = "The view wrote a message into the box below; send it if you want to." })
	return nil
}

// modelContext implements appHost: in a conversation, the relay keeps
// the text for the model, under the tool call the view shows.
func (v *AppView) modelContext(text string, done func(*wire.Error)) {
	if v.Chat == "" {
		done(nil)
		return
	}
	send(wire.OpSetChatAppContext, wire.SetChatAppContextArgs{Chat: v.Chat, Call: v.Call.ID, Text: text}, func(r store.Reply) {
		v.later(func(app.Context) {
			if r.Err == nil {
				v.notice = "The view gave the model context for your next message."
			}
			done(r.Err)
		})
	})
}

// resize implements appHost.
func (v *AppView) resize(height int) {
	if frame := app.Window().GetElementByID(v.frameID()); frame.Truthy() {
		frame.Get("style").Call("setProperty", "height", strconv.Itoa(height)+"px")
	}
}

// displayMode implements appHost. A view fills the window only when the
// person says so: it asks, and the page shows the ask in the view's head
// (the newer ask replaces the older, answered with the mode in force), and
// answers once the person chose. Full, the view's head stays above it,
// naming the server, with the way back; Escape, with the focus outside the
// view, goes back too.
func (v *AppView) displayMode(mode string, done func(string)) {
	v.later(func(ctx app.Context) {
		switch {
		case mode == displayFullscreen && !v.full && !v.raw:
			v.answerFull(false)
			v.askFull = done
			return
		case mode == displayInline && v.full:
			v.showFull(false)
		}
		done(v.displayed())
	})
}

// displayed is the mode the view is shown in.
func (v *AppView) displayed() string { return choose(v.full, displayFullscreen, displayInline) }

// answerFull answers the view's pending ask to fill the window, if any:
// yes shows it so.
func (v *AppView) answerFull(yes bool) {
	if v.askFull == nil {
		return
	}
	done := v.askFull
	v.askFull = nil
	if yes && !v.flooded && !v.raw {
		v.showFull(true)
	}
	done(v.displayed())
}

// showFull has the view fill the window, or go back inline, and tells the
// view once the page shows it so, with its container's size, and again
// each time the window's size changes.
func (v *AppView) showFull(full bool) {
	if v.full == full {
		return
	}
	v.full = full
	if !full {
		v.onFull.stop()
		v.do(func(b *appBridge) { b.setDisplay(displayInline, 0, 0) })
		return
	}
	v.onFull.listen("keydown", func(ev app.Value) {
		if ev.Get("key").String() == "Escape" {
			v.later(func(app.Context) { v.showFull(false) })
		}
	})
	v.onFull.listen("resize", func(app.Value) {
		v.later(func(ctx app.Context) {
			if v.resizing { // one measure for a burst of resizes
				return
			}
			v.resizing = true
			ctx.After(resizeSettle, func(app.Context) {
				v.resizing = false
				v.measureFull()
			})
		})
	})
	v.afterRender(func(app.Context) { v.measureFull() })
}

// measureFull tells a view that fills the window its container's size.
func (v *AppView) measureFull() {
	frame := app.Window().GetElementByID(v.frameID())
	if !frame.Truthy() || !v.full {
		return
	}
	rect := frame.Call("getBoundingClientRect")
	w, h := rect.Get("width").Int(), rect.Get("height").Int()
	v.do(func(b *appBridge) { b.setDisplay(displayFullscreen, w, h) })
}

// suspend implements appHost.
func (v *AppView) suspend() { v.later(func(app.Context) { v.flooded = true }) }

// started implements appHost.
func (v *AppView) started() { v.later(func(app.Context) { v.state = viewReady }) }

// decide answers the link the view asked to open.
func (v *AppView) decide(open bool) {
	if open && !openExternal(v.link) {
		open = false
	}
	if v.answer != nil {
		v.answer(open)
	}
	v.link, v.answer = "", nil
}

// Render implements app.Composer.
func (v *AppView) Render() app.UI {
	name := orDefault(v.ServerName, v.Server)
	state := orDefault(v.state, viewLoading)
	full := v.full && !v.flooded
	return app.Section().Class("app-view", choose(v.raw, "is-raw", ""), choose(full, "is-full", "")).DataSet("server", v.Server).DataSet("uri", v.URI).
		DataSet("state", state).Aria("label", "View by "+name).Body(
		app.Header().Class("app-view-head").Body(
			app.Span().Class("app-view-title").Text("View by "+name),
			app.If(full, func() app.UI {
				return app.Button().Type("button").Class("app-exit-full", "sb-button").Text("Back to the dashboard").
					OnClick(func(ctx app.Context, e app.Event) { v.showFull(false) })
			}),
			app.If(!v.flooded && !full, func() app.UI {
				return app.Button().Type("button").Class("app-toggle", "sb-button", "is-quiet").Aria("pressed", v.raw).
					Text(choose(v.raw, "Show the view", "Show the raw result")).
					OnClick(func(ctx app.Context, e app.Event) { v.raw = !v.raw })
			}),
		),
		// One element always, so that what comes and goes in it never
		// moves the frame: go-app would make the frame anew, and the view
		// would start again.
		app.Div().Class("app-view-notes").Body(
			app.If(v.problem != "", func() app.UI {
				return app.P().Class("app-view-error", "sb-error").Role("alert").Text(v.problem)
			}),
			app.If(v.again, func() app.UI {
				return app.Button().Type("button").Class("app-view-again", "sb-button").Text("Read the view again").
					OnClick(func(ctx app.Context, e app.Event) { v.read() })
			}),
			app.If(v.waiting, func() app.UI {
				return app.P().Class("app-view-waiting", "sb-note").Text("The connection to the relay was lost while the view was read: it is read again once the relay is back.")
			}),
			app.If(v.flooded, func() app.UI {
				return app.P().Class("app-view-flooded", "sb-error").Role("alert").
					Text("The view sent more messages than a view may, and was stopped.")
			}),
			app.If(v.view != nil && v.asksPermissions(), v.renderPermissions),
			app.If(v.link != "", v.renderLink),
			app.If(v.askFull != nil, v.renderAskFull),
			app.If(v.notice != "", func() app.UI { return app.P().Class("app-view-notice", "sb-note").Text(v.notice) }),
		),
		// The proxy's frame is sandboxed without allow-same-origin: its
		// document has an opaque origin, like the view's. So Chromium runs
		// the proxy and the view in one process, where the view's messages
		// reach the proxy without crossing the browser's, and the proxy
		// stops a flooding view before it runs again. A stopped
		// view's frame is removed, the proxy with it.
		app.If(v.view != nil && !v.asksPermissions() && !v.flooded, func() app.UI {
			src := wire.AppSandboxURL(appsOrigin(), pageOrigin(), v.view.CSP, v.granted)
			return app.IFrame().ID(v.frameID()).Class("app-frame", choose(v.raw, "is-hidden", "")).Src(src).
				Title("View by "+name).Attr("sandbox", proxySandbox).
				Attr("allow", frameAllow(v.granted)).Attr("referrerpolicy", "no-referrer")
		}),
		app.If(v.raw || v.flooded || state == viewFailed, func() app.UI { return renderToolResult(v.Call) }),
	)
}

// asksPermissions says whether the view waits for the person's answer to
// the browser features it declared: it is not framed before.
func (v *AppView) asksPermissions() bool {
	return !v.decided && len(permissionNames(v.view.Permissions)) > 0
}

// renderPermissions asks the person whether the view may use the browser
// features it declared; without an answer, it is not shown.
func (v *AppView) renderPermissions() app.UI {
	words := make([]string, 0, 4)
	for _, p := range permissionNames(v.view.Permissions) {
		words = append(words, permissionWords[p])
	}
	decide := func(allow bool) {
		if allow {
			v.granted = v.view.Permissions
		}
		granted := v.granted
		v.do(func(b *appBridge) { b.granted = granted }) // before the frame asks for the view
		v.decided = true
	}
	return app.Div().Class("app-permissions", "md-consent").Role("group").Aria("label", "The view asks for permissions").Body(
		app.P().Text("The view asks to use "+joinWords(words)+"."),
		app.Span().Class("md-consent-actions").Body(
			app.Button().Type("button").Class("app-permissions-allow", "sb-button", "is-primary").Text("Allow").
				OnClick(func(ctx app.Context, e app.Event) { decide(true) }),
			app.Button().Type("button").Class("app-permissions-deny", "sb-button", "is-quiet").Text("Show it without them").
				OnClick(func(ctx app.Context, e app.Event) { decide(false) }),
		),
	)
}

// permissionWords say what each feature lets a view do.
var permissionWords = map[string]string{
	"camera": "your camera", "microphone": "your microphone", "geolocation": "your location", "clipboard-write": "your clipboard (to write to it)",
}

// permissionNames are the features of p by their Permissions-Policy names.
func permissionNames(p wire.AppPermissions) []string {
	var names []string
	for _, f := range []struct {
		on   bool
		name string
	}{{p.Camera, "camera"}, {p.Microphone, "microphone"}, {p.Geolocation, "geolocation"}, {p.ClipboardWrite, "clipboard-write"}} {
		if f.on {
			names = append(names, f.name)
		}
	}
	return names
}

// proxySandbox is the sandbox of the proxy's frame: scripts, and forms for
// the view (a frame's sandbox holds for the frames inside it), and no
// allow-same-origin: the proxy needs no storage, cookies or DOM of its
// origin.
const proxySandbox = "allow-scripts allow-forms"

// frameAllow is the proxy frame's allow attribute: the granted features,
// for the document in that frame only ('src'; a sandboxed document's origin
// is opaque, so no origin would name it).
func frameAllow(granted wire.AppPermissions) string {
	var parts []string
	for _, name := range permissionNames(granted) {
		parts = append(parts, name+" 'src'")
	}
	return strings.Join(parts, "; ")
}

// joinWords joins words as a sentence does: "a", "a and b", "a, b and c".
func joinWords(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// renderLink asks the person before a link the view asked for opens.
func (v *AppView) renderLink() app.UI {
	return app.Div().Class("app-link-consent", "md-consent").Role("group").Aria("label", "The view asks to open a link").Body(
		renderAddress("The view asks to open ", v.link),
		app.Span().Class("md-consent-actions").Body(
			app.Button().Type("button").Class("app-link-open", "sb-button", "is-primary").Text("Open").
				OnClick(func(ctx app.Context, e app.Event) { v.decide(true) }),
			app.Button().Type("button").Class("app-link-cancel", "sb-button", "is-quiet").Text("Cancel").
				OnClick(func(ctx app.Context, e app.Event) { v.decide(false) }),
		),
	)
}

// renderAskFull asks the person whether the view may fill the window.
func (v *AppView) renderAskFull() app.UI {
	return app.Div().Class("app-full-consent", "md-consent").Role("group").Aria("label", "The view asks to fill the window").Body(
		app.Span().Text("The view asks to fill the window. "),
		app.Span().Class("md-consent-actions").Body(
			app.Button().Type("button").Class("app-full-yes", "sb-button", "is-primary").Text("Fill the window").
				OnClick(func(ctx app.Context, e app.Event) { v.answerFull(true) }),
			app.Button().Type("button").Class("app-full-no", "sb-button", "is-quiet").Text("Not now").
				OnClick(func(ctx app.Context, e app.Event) { v.answerFull(false) }),
		),
	)
}

// pageTheme is the dashboard's color scheme: the one an embedding site
// set, else the browser's preference.
func pageTheme() string {
	if !app.IsClient {
		return "light"
	}
	root := app.Window().Get("document").Get("documentElement")
	if s := root.Get("style").Call("getPropertyValue", "color-scheme").String(); s == "dark" || s == "light" {
		return s
	}
	if app.Window().Call("matchMedia", "(prefers-color-scheme: dark)").Get("matches").Bool() {
		return "dark"
	}
	return "light"
}

// pageOrigin is the dashboard's origin.
func pageOrigin() string {
	if !app.IsClient {
		return ""
	}
	return app.Window().Get("location").Get("origin").String()
}

// navigatorString is a string property of the browser's navigator.
func navigatorString(name string) string {
	if v := app.Window().Get("navigator").Get(name); v.Type() == app.TypeString {
		return v.String()
	}
	return ""
}

// timeZone is the browser's IANA time zone.
func timeZone() string {
	intl := app.Window().Get("Intl")
	if !intl.Truthy() {
		return ""
	}
	return intl.Call("DateTimeFormat").Call("resolvedOptions").Get("timeZone").String()
}
