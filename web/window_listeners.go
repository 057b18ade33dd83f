package web

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// windowListeners are passive listeners on the window, stopped together.
// They are only touched on the page's one thread.
type windowListeners []windowListener

// windowListener is a listener on the window.
type windowListener struct {
	event string
	f     app.Func
}

// listen adds a passive listener of event on the window, which runs do
// with the event.
func (ls *windowListeners) listen(event string, do func(ev app.Value)) {
	f := app.FuncOf(func(_ app.Value, args []app.Value) any {
		if len(args) > 0 {
			do(args[0])
		}
		return nil
	})
	app.Window().Call("addEventListener", event, f, map[string]any{"passive": true})
	*ls = append(*ls, windowListener{event, f})
}

// stop removes every listener.
func (ls *windowListeners) stop() {
	for _, l := range *ls {
		app.Window().Call("removeEventListener", l.event, l.f)
		l.f.Release()
	}
	*ls = nil
}
