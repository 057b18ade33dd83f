package web

import (
	"sync/atomic"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// followSlack is how near the end of the page, in pixels, counts as at
// the end.
const followSlack = 48

// chatFollow keeps the page at its end while a conversation grows, as long
// as the person is there: scrolling up stops it, scrolling back to the end
// starts it again.
type chatFollow struct {
	away     atomic.Bool // the person scrolled up from the end
	lastY    float64     // where the page was at the last scroll event
	onScroll app.Func
	pending  bool // a scroll to the end waits for the render: one a frame, as it lays the page out
}

// start listens to the page's scrolling.
func (f *chatFollow) start() {
	if !app.IsClient || f.onScroll != nil {
		return
	}
	f.onScroll = app.FuncOf(func(app.Value, []app.Value) any {
		w := app.Window()
		y := w.Get("scrollY").Float()
		doc := w.Get("document").Get("documentElement")
		atEnd := doc.Get("scrollHeight").Float()-y-w.Get("innerHeight").Float() < followSlack
		switch {
		case atEnd:
			f.away.Store(false)
		case y < f.lastY:
			f.away.Store(true) // up, by the person: the page's own scrolling only goes down
		}
		f.lastY = y
		return nil
	})
	app.Window().Call("addEventListener", "scroll", f.onScroll, map[string]any{"passive": true})
}

// stop stops listening.
func (f *chatFollow) stop() {
	if f.onScroll != nil {
		app.Window().Call("removeEventListener", "scroll", f.onScroll)
		f.onScroll.Release()
		f.onScroll = nil
	}
}

// keep scrolls to the end after the render, unless the person is away from it.
func (f *chatFollow) keep(ctx app.Context) {
	if !app.IsClient || f.away.Load() || f.pending {
		return
	}
	f.pending = true
	ctx.Defer(func(app.Context) {
		f.pending = false
		w := app.Window()
		w.Call("scrollTo", 0, w.Get("document").Get("documentElement").Get("scrollHeight"))
	})
}

// toEnd follows the end again, as for a conversation just opened.
func (f *chatFollow) toEnd(ctx app.Context) {
	f.away.Store(false)
	f.keep(ctx)
}
