package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/metrics"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The cap on a key's live MCP sessions. A key at its cap that opens another
// session closes its least recently used session that has no request or
// stream open (an agent that went away without ending its session: its
// streams closed with its connections); when every session has one open,
// the new session is refused with 429. A client that lost its session id
// can thus always start again, and a key cannot pile up sessions past the
// cap.

// DefaultMaxSessions is the default of [Config.MaxSessions].
const DefaultMaxSessions = 32

// sessionHeader carries the MCP session id (Streamable HTTP).
const sessionHeader = "Mcp-Session-Id"

// errAllSessionsBusy refuses a new session of a key whose sessions all
// have a request or stream open.
var errAllSessionsBusy = errors.New("this key has as many MCP sessions open as it may, each with a request or stream in progress; end one (DELETE it) and try again")

// sessionUse is what a view knows of one of its sessions' HTTP traffic.
type sessionUse struct {
	last    time.Time // the latest request began or ended
	open    int       // requests (streams included) in progress
	closing bool      // closed for the cap; no longer counted
}

// opensSession reports whether r starts an MCP session: a POST without a
// session id that carries an initialize request. It reads the body (up to
// the transport's limit) and puts it back.
func opensSession(r *http.Request) bool {
	if r.Method != http.MethodPost || r.Header.Get(sessionHeader) != "" || r.Body == nil {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, wire.MaxInboundFrame+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
	if err != nil {
		return false
	}
	var one struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(b, &one) == nil {
		return one.Method == "initialize"
	}
	var batch []struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(b, &batch) == nil {
		for _, m := range batch {
			if m.Method == "initialize" {
				return true
			}
		}
	}
	return false
}

// serveSession serves r, a request of session id (empty: none) on v,
// noting the session's use meanwhile.
func (v *view) serveSession(w http.ResponseWriter, r *http.Request, id string) {
	if id == "" {
		v.http.ServeHTTP(w, r)
		return
	}
	v.used(id, 1)
	defer v.used(id, -1)
	liftTaskParam(r)
	v.http.ServeHTTP(w, r)
}

// used notes that session id opened (0), or that a request of it began
// (+1) or ended (-1). Ids of no session opened here are not noted, so that
// made-up ids cost nothing.
func (v *view) used(id string, delta int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	u := v.use[id]
	if u == nil {
		if delta != 0 {
			return
		}
		u = &sessionUse{}
		v.use[id] = u
	}
	u.open = max(0, u.open+delta)
	u.last = time.Now()
}

// idlest returns the view's live session with nothing open that was used
// least recently, and how many sessions the view has. Sessions that ended
// are forgotten.
func (v *view) idlest() (ss *mcp.ServerSession, last time.Time, live int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	seen := map[string]bool{}
	for s := range v.srv.Sessions() {
		if s.ID() == "" { // a request of 2026-07-28, served on its own
			continue
		}
		seen[s.ID()] = true
		u := v.use[s.ID()]
		if u != nil && u.closing {
			continue
		}
		live++
		if u == nil || u.open > 0 { // not yet noted (being opened), or busy
			continue
		}
		if ss == nil || u.last.Before(last) {
			ss, last = s, u.last
		}
	}
	for id := range v.use {
		if !seen[id] {
			delete(v.use, id)
		}
	}
	return ss, last, live
}

// closeForCap closes session ss of v to make room under the cap.
func (v *view) closeForCap(ss *mcp.ServerSession) {
	v.mu.Lock()
	if u := v.use[ss.ID()]; u != nil {
		u.closing = true
	}
	v.mu.Unlock()
	ss.Close()
}

// openSession serves r, which opens a session of key on v, within the key's
// cap: it closes the key's idlest session if it must, or refuses with 429.
func (g *Gateway) openSession(w http.ResponseWriter, r *http.Request, key string, v *view) {
	if err := g.admit(key); err != nil {
		metrics.Refused(metrics.LimitSessions)
		w.Header().Set("Retry-After", "1")
		http.Error(w, err.Error(), http.StatusTooManyRequests)
		return
	}
	defer g.admitted(key)
	v.serveSession(&noteOpened{ResponseWriter: w, v: v}, r, "")
}

// noteOpened notes the session a response opens before the response
// leaves, so before the agent can use the session's id.
type noteOpened struct {
	http.ResponseWriter
	v     *view
	noted bool
}

func (n *noteOpened) note() {
	if !n.noted {
		n.noted = true
		if id := n.Header().Get(sessionHeader); id != "" {
			metrics.GatewaySessionOpened()
			n.v.used(id, 0)
		}
	}
}

func (n *noteOpened) WriteHeader(code int) {
	n.note()
	n.ResponseWriter.WriteHeader(code)
}

func (n *noteOpened) Write(b []byte) (int, error) {
	n.note()
	return n.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the writer, to flush.
func (n *noteOpened) Unwrap() http.ResponseWriter { return n.ResponseWriter }

// admit reserves a session of key within its cap, closing the key's idlest
// session when it is at the cap; it fails when every session is busy.
func (g *Gateway) admit(key string) error {
	for range 3 { // another opening may take the slot a close made
		g.opening.Lock()
		live := g.openingN[key]
		var idle *mcp.ServerSession
		var idleView *view
		var idleLast time.Time
		for _, v := range g.viewsOf(key) {
			ss, last, n := v.idlest()
			live += n
			if ss != nil && (idle == nil || last.Before(idleLast)) {
				idle, idleView, idleLast = ss, v, last
			}
		}
		if live < g.cfg.MaxSessions {
			g.openingN[key]++
			g.opening.Unlock()
			return nil
		}
		g.opening.Unlock()
		if idle == nil {
			return errAllSessionsBusy
		}
		idleView.closeForCap(idle)
		g.log.Info("agent key at its session cap: closed its idlest session", "key", key, "cap", fmt.Sprint(g.cfg.MaxSessions))
	}
	return errAllSessionsBusy
}

// admitted releases the reservation of admit once the session is open (or
// failed to open).
func (g *Gateway) admitted(key string) {
	g.opening.Lock()
	defer g.opening.Unlock()
	if g.openingN[key]--; g.openingN[key] <= 0 {
		delete(g.openingN, key)
	}
}

// viewsOf returns the live views of key.
func (g *Gateway) viewsOf(key string) []*view {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*view
	for k, v := range g.views {
		if k.key == key {
			out = append(out, v)
		}
	}
	return out
}
