package web

import (
	"net/url"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/web/store"
)

// An embed has no session cookie, so the relay's start page cannot tell
// whose browser opened it. The embed's authorization popup therefore opens
// the hand-off page (OAuthHandoffPath, on the relay's origin), which asks
// the page that opened it for the token, shows it to the relay's start
// page in a request header, and goes on to the authorization server. The
// token never travels in a URL.
const (
	msgHandoffRequest = "switchboard:handoff-request" // popup → embed
	msgHandoffToken   = "switchboard:handoff-token"   // embed → popup: {token}
)

// embedPopup is the authorization popup of an embed: it keeps its opener
// (the hand-off page needs it; that page drops it before it leaves for the
// authorization server) and opens the hand-off page for the start URL.
type embedPopup struct{ browserPopup }

// Open implements [store.Popup].
func (p embedPopup) Open(start string) bool {
	if !p.open() {
		return false
	}
	u, err := url.Parse(start)
	if err != nil || u.Path != OAuthStartPath {
		return p.browserPopup.Open(start)
	}
	u.Path = OAuthHandoffPath
	embed.mu.Lock()
	embed.popup = p.w
	embed.mu.Unlock()
	p.w.Get("location").Set("href", u.String())
	return true
}

// answerHandoff gives the hand-off page in popup the token, at the relay's
// origin only.
func answerHandoff(popup app.Value) {
	tok := embedToken()
	if tok == "" {
		return
	}
	origin := app.Window().Get("location").Get("origin").String()
	popup.Call("postMessage", map[string]any{"type": msgHandoffToken, "token": tok}, origin)
}

// openAuthPopup opens the authorization popup: the dashboard's, or the
// embed's.
func openAuthPopup() store.Popup {
	p := browserPopup{w: app.Window().Call("open", "about:blank", popupName, popupFeatures)}
	if embedded() {
		return embedPopup{p}
	}
	return p
}
