package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// followSlack is how near the end of the page, in pixels, counts as at
// the end.
const followSlack = 48

// chatFollow keeps the page at its end while a conversation grows, as long
// as the person is there: scrolling up stops it, scrolling back to the end
// starts it again. The page's own scrolling only goes down, so any move up
// is the person's.
//
// Its fields are only touched on the page's one thread: by the listeners,
// which go-app runs there, and by the renders.
type chatFollow struct {
	away      bool    // the person scrolled up from the end
	lastY     float64 // where the page was when last seen
	pending   bool    // a scroll to the end waits for the render: one a frame, as it lays the page out
	listeners windowListeners
}

// start listens to the person's scrolling.
func (f *chatFollow) start() {
	if !app.IsClient || f.listeners != nil {
		return
	}
	f.listeners.listen("scroll", func(app.Value) {
		w := app.Window()
		y := w.Get("scrollY").Float()
		doc := w.Get("document").Get("documentElement")
		switch {
		case doc.Get("scrollHeight").Float()-y-w.Get("innerHeight").Float() < followSlack:
			f.away = false
		case y < f.lastY:
			f.away = true
		}
		f.lastY = y
	})
	f.listeners.listen("wheel", func(ev app.Value) { // before the scroll it makes, which a render could undo
		if ev.Get("deltaY").Float() < 0 {
			f.away = true
		}
	})
}

// stop stops listening.
func (f *chatFollow) stop() { f.listeners.stop() }

// keep scrolls to the end after the render, unless the person is away from it.
func (f *chatFollow) keep(ctx app.Context) {
	if !app.IsClient || f.away || f.pending {
		return
	}
	f.pending = true
	ctx.Defer(func(app.Context) {
		f.pending = false
		w := app.Window()
		if f.away || w.Get("scrollY").Float() < f.lastY-1 { // away since keep, or up since the last scroll event
			f.away = true
			return
		}
		w.Call("scrollTo", 0, w.Get("document").Get("documentElement").Get("scrollHeight"))
		f.lastY = w.Get("scrollY").Float()
	})
}

// toEnd follows the end again, as for a conversation just opened.
func (f *chatFollow) toEnd(ctx app.Context) {
	f.away, f.lastY = false, 0
	f.keep(ctx)
}
