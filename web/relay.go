package web

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// The page's one connection to the relay. It outlives the components, which
// come and go; only the browser makes it (the server prerenders the page
// without one, as "connecting").
var page struct {
	once   sync.Once
	client *store.Client

	mu     sync.Mutex
	notify func()
}

// connectRelay connects the page to the relay, once, and makes notify the
// function called when the state changes.
func connectRelay(notify func()) {
	page.mu.Lock()
	page.notify = notify
	page.mu.Unlock()
	if !app.IsClient {
		return
	}
	page.once.Do(func() {
		var token func() string
		if embedded() {
			token = embedToken
		}
		c := store.New(store.Config{
			URL:   relayURL(app.Window().URL()),
			Dial:  dialBrowser,
			Token: token,
			OnChange: func() {
				page.mu.Lock()
				n := page.notify
				page.mu.Unlock()
				if n != nil {
					n()
				}
			},
		})
		page.mu.Lock()
		page.client = c
		page.mu.Unlock()
		c.Start()
	})
}

// relay returns the page's client, or nil before it connected.
func relay() *store.Client {
	page.mu.Lock()
	defer page.mu.Unlock()
	return page.client
}

// currentView returns what the relay said so far.
func currentView() store.View {
	if c := relay(); c != nil {
		return c.View()
	}
	if v, ok := prerenderedView(); ok {
		return v
	}
	return store.View{Status: store.StatusConnecting}
}

// opFailure says why an op failed: failed (such as "Could not add the
// server: ") and the relay's reason. An op whose answer was lost may have
// run, so it is not said to have failed.
func opFailure(failed string, e *wire.Error) string {
	switch e.Code {
	case store.CodeConnectionLost:
		return upperFirst(e.Message) + "."
	case wire.CodeNotReady:
		return failed + e.Message + ". " + store.NotReadyHint
	}
	return failed + e.Message
}

// upperFirst capitalises the first letter of s.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// send sends an op through the page's client; without one it fails at once.
func send(op wire.OpName, args any, done func(store.Reply)) {
	c := relay()
	if c == nil {
		done(store.Reply{Err: &wire.Error{Code: store.CodeOffline, Message: "not connected to the relay yet"}})
		return
	}
	c.Do(op, args, done)
}
