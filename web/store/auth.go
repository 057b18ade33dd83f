package store

import (
	"encoding/json"
	"maps"

	"github.com/switchboard-mcp/switchboard/shared/urlsafe"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// AuthFlow is an OAuth authorization this dashboard started for a server.
type AuthFlow struct {
	Sending bool        // the relay has not answered yet
	Opened  bool        // the authorization page was opened in the popup
	Link    string      // the authorization URL, to open by hand: the popup was blocked
	Err     *wire.Error // why it could not start
}

// Popup is the window the authorization page opens in. The browser only
// lets a page open one during a click, before the relay's answer is there,
// so it is opened blank and the client points it at the page.
type Popup interface {
	// Open shows url in the popup; false means there is no popup (it was
	// blocked or closed).
	Open(url string) bool
	// Close closes the popup, if there is one.
	Close()
}

// Authorize asks the relay for the authorization URL of server and, once
// it passes [urlsafe.CheckOpenable], opens it in the popup, or keeps it as
// the flow's Link when the popup is gone. On failure the popup is closed
// and the flow keeps the error. Nothing is sent while a request is on its
// way; open, which opens the popup, is called before Authorize returns
// (still in the click) and only when a request is sent.
//
// A flow lasts while its server is authenticating: it is dropped when the
// server leaves that state or is removed, and an answer that comes after
// is not kept.
func (c *Client) Authorize(server string, open func() Popup) {
	if !c.setAuth(server, func(f *AuthFlow) bool {
		if f.Sending {
			return false
		}
		*f = AuthFlow{Sending: true}
		return true
	}) {
		return
	}
	popup := open()
	c.cfg.OnChange()
	c.Do(wire.OpAuthorize, wire.ServerArgs{Server: server}, func(r Reply) {
		flow := authorized(r, popup)
		c.mu.Lock()
		if c.authenticatingLocked(server) {
			c.auth = withFlow(c.auth, server, flow)
		} else {
			c.auth = withoutFlows(c.auth, func(id string) bool { return id == server })
		}
		c.mu.Unlock()
		c.cfg.OnChange()
	})
}

// authorized is the flow after the relay's answer r.
func authorized(r Reply, popup Popup) AuthFlow {
	if r.Err != nil {
		popup.Close()
		return AuthFlow{Err: r.Err}
	}
	var res wire.AuthorizeResult
	if err := json.Unmarshal(r.Data, &res); err != nil {
		popup.Close()
		return AuthFlow{Err: &wire.Error{Code: wire.CodeInternal, Message: "the relay's answer could not be read"}}
	}
	if _, err := urlsafe.CheckOpenable(res.URL); err != nil {
		popup.Close()
		return AuthFlow{Err: &wire.Error{Code: wire.CodeInvalidURL, Message: "the authorization page will not be opened: " + err.Error()}}
	}
	if popup.Open(res.URL) {
		return AuthFlow{Opened: true}
	}
	return AuthFlow{Link: res.URL}
}

// setAuth edits the flow of server in a new map, if edit says it changed.
func (c *Client) setAuth(server string, edit func(*AuthFlow) bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.auth[server]
	if !edit(&f) {
		return false
	}
	c.auth = withFlow(c.auth, server, f)
	return true
}

// authenticatingLocked reports whether the mirror shows server authenticating.
func (c *Client) authenticatingLocked(server string) bool {
	s := c.snap.ServerByID(server)
	return s != nil && s.State == wire.StateAuthenticating
}

// pruneAuthLocked drops the flows of servers that are no longer
// authenticating, so one that returns to it starts afresh.
func (c *Client) pruneAuthLocked() {
	c.auth = withoutFlows(c.auth, func(id string) bool { return !c.authenticatingLocked(id) })
}

// withFlow returns a copy of flows with server's flow set to f.
func withFlow(flows map[string]AuthFlow, server string, f AuthFlow) map[string]AuthFlow {
	next := maps.Clone(flows)
	if next == nil {
		next = map[string]AuthFlow{}
	}
	next[server] = f
	return next
}

// withoutFlows returns flows without those whose server drop names, in a
// copy when any is dropped.
func withoutFlows(flows map[string]AuthFlow, drop func(server string) bool) map[string]AuthFlow {
	for id := range flows {
		if drop(id) {
			next := maps.Clone(flows)
			maps.DeleteFunc(next, func(id string, _ AuthFlow) bool { return drop(id) })
			return next
		}
	}
	return flows
}
