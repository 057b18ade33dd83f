package web

import (
	"sync"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// maxHostToken bounds a token a host page hands over, as the relay bounds
// tokens before parsing them.
const maxHostToken = 8 << 10

// The embedded page's link to its host page: the host's origin (from the
// page's address; the relay served the page only because that origin is
// one it lists, and the browser only because the framing page has it),
// the token the host handed over, and the authorization popup the page
// opened. Messages are accepted only from the parent window with the host's
// origin, and sent only to that origin.
var embed struct {
	mu     sync.Mutex
	host   string
	token  string
	popup  app.Value // the authorization popup, while one is open
	report hostReport
	listen app.Func
}

// embedded reports whether this page is an embed, talking to a host.
func embedded() bool {
	embed.mu.Lock()
	defer embed.mu.Unlock()
	return embed.host != ""
}

// embedToken is the store's Config.Token of an embed.
func embedToken() string {
	embed.mu.Lock()
	defer embed.mu.Unlock()
	return embed.token
}

// startEmbed listens to the host page at origin host, once, and tells it
// the page is ready for a token.
func startEmbed(host string) {
	if !app.IsClient {
		return
	}
	embed.mu.Lock()
	if embed.listen != nil {
		embed.mu.Unlock()
		return
	}
	embed.host = host
	embed.listen = app.FuncOf(func(_ app.Value, args []app.Value) any {
		if len(args) > 0 {
			onMessage(args[0])
		}
		return nil
	})
	listen := embed.listen
	embed.mu.Unlock()
	app.Window().Call("addEventListener", "message", listen)
	postHost(hostEvent{"type": msgReady})
}

// onMessage handles one message event: a token or a theme from the host,
// or the authorization popup asking for the token.
func onMessage(ev app.Value) {
	data := ev.Get("data")
	if data.Type() != app.TypeObject || data.Get("type").Type() != app.TypeString {
		return
	}
	origin, source := ev.Get("origin").String(), ev.Get("source")
	typ := data.Get("type").String()
	embed.mu.Lock()
	host, popup := embed.host, embed.popup
	embed.mu.Unlock()
	w := app.Window()
	switch {
	case origin == host && source.Equal(w.Get("parent")):
		switch typ {
		case msgToken:
			if tok := data.Get("token"); tok.Type() == app.TypeString && tok.String() != "" && len(tok.String()) <= maxHostToken {
				setEmbedToken(tok.String())
			}
		case msgTheme:
			applyTheme(data)
		}
	case origin == w.Get("location").Get("origin").String() && popup != nil && source.Equal(popup):
		if typ == msgHandoffRequest {
			answerHandoff(source)
		}
	}
}

// setEmbedToken keeps the host's token and hands it to the relay connection.
func setEmbedToken(tok string) {
	embed.mu.Lock()
	embed.token = tok
	embed.mu.Unlock()
	if c := relay(); c != nil {
		c.Reauth()
	}
}

// postHost sends ev to the host page, at its origin only.
func postHost(ev hostEvent) {
	embed.mu.Lock()
	host := embed.host
	embed.mu.Unlock()
	if host == "" || !app.IsClient {
		return
	}
	app.Window().Get("parent").Call("postMessage", map[string]any(ev), host)
}

// reportToHost tells the host what changed since the last report.
func reportToHost() {
	v := currentView()
	embed.mu.Lock()
	events := embed.report.next(v)
	embed.mu.Unlock()
	for _, ev := range events {
		postHost(ev)
	}
}
