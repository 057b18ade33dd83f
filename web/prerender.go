package web

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// The relay prerenders a signed-in person's page with their state, so that
// their servers show before the wasm starts; the wasm then draws its first
// screen only once the relay's snapshot arrived (or after a short wait), so
// the list does not blink empty while it takes over.
var prerender struct {
	mu   sync.Mutex                 // one prerender with a state at a time
	view atomic.Pointer[store.View] // the state being prerendered, nil otherwise
}

// PrerenderWith runs render, the relay's page handler, while the pages show
// snap as the relay's state (Loaded, and still connecting), or no state
// when snap is nil. Calls are serialized, so a page never shows another
// person's state: the relay renders every page through it.
func PrerenderWith(snap *wire.Snapshot, render func()) {
	prerender.mu.Lock()
	defer prerender.mu.Unlock()
	if snap != nil {
		prerender.view.Store(&store.View{Status: store.StatusConnecting, Loaded: true, Snapshot: *snap})
		defer prerender.view.Store(nil)
	}
	render()
}

// PrerenderedAttr marks the root of a page the relay prerendered with the
// person's state. go-app's loader covers the whole page until the wasm runs;
// static/switchboard.css hides it over such a page, so the person reads
// their servers (inert, the relay's status "Connecting…") while the wasm
// loads, and sees the loader again only if loading fails (go-app then
// stops its icon's spin and writes the error under it).
const PrerenderedAttr = "data-prerendered"

// pageRoot is a page's root as it is drawn: in the browser as it is; in the
// relay's prerender inert, so that nothing typed there is lost when the wasm
// replaces it, and marked with PrerenderedAttr when it shows a state.
func pageRoot(root app.HTMLDiv, v store.View) app.HTMLDiv {
	if app.IsClient {
		return root
	}
	root = root.Attr("inert", true)
	if v.Loaded {
		root = root.Attr(PrerenderedAttr, "state")
	}
	return root
}

// prerenderedView returns the state of the prerender under way, if any.
func prerenderedView() (store.View, bool) {
	if v := prerender.view.Load(); v != nil {
		return *v, true
	}
	return store.View{}, false
}

// Preconnect connects the page to the relay before the dashboard's first
// render and waits, at most wait, for the first snapshot (or for the relay
// to say the person is signed out), so that the first screen the wasm draws
// replaces the prerendered one with the same list. The wasm main calls it
// before app.RunWhenOnBrowser. An embedded dashboard ([EmbedPath]) is not
// prerendered and connects only once its host handed it a token.
func Preconnect(wait time.Duration) {
	if app.Window().URL().Path == EmbedPath {
		return
	}
	settled := make(chan struct{}, 1)
	connectRelay(func() {
		if v := currentView(); v.Loaded || v.Status == store.StatusSignedOut {
			select {
			case settled <- struct{}{}:
			default:
			}
		}
	})
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-settled:
	case <-t.C:
	}
}
