package web

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// Limits of the call history kept in this browser.
const (
	maxHistory     = 50       // entries kept, over all servers; the oldest go first
	maxHistoryArgs = 16 << 10 // arguments larger than this are not kept for re-running
	historyKey     = "switchboard.tool-history."
	// maxHistoryDetail caps the error an entry keeps, in characters.
	maxHistoryDetail = 300
)

// Outcomes of a history entry.
const (
	outcomePending = "pending"
	outcomeUnknown = "unknown" // the page went away before the call ended
)

// historyEntry is one tool call made in this browser.
type historyEntry struct {
	Page    string          `json:"page"` // the page life that made it
	ID      string          `json:"id"`   // the call's op id in that page life
	Server  string          `json:"server"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args,omitempty"` // nil when too large to keep
	Started time.Time       `json:"started"`
	Millis  int64           `json:"millis,omitempty"`
	Outcome string          `json:"outcome"` // pending, ok, error, cancelled or unknown
	Detail  string          `json:"detail,omitempty"`
}

// callHistory is the history of the signed-in user, mirrored in the tab's
// session storage: it outlives reloads, and its arguments (which may carry
// secrets) leave the disk with the tab.
type callHistory struct {
	user    string
	loaded  bool
	entries []historyEntry // newest first
}

// pageLife names this page's life, so that entries left pending by an
// earlier one (a reload) read as unknown rather than wait for ever.
var pageLife = func() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}()

// history is the page's call history; only the UI goroutine touches it.
var history callHistory

// historyOf returns the history of user, loaded from session storage.
func historyOf(ctx app.Context, user string) *callHistory {
	h := &history
	if h.loaded && h.user == user {
		return h
	}
	*h = callHistory{user: user, loaded: true}
	ctx.SessionStorage().Get(historyKey+user, &h.entries) // a missing or unreadable history is empty
	for i := range h.entries {
		if e := &h.entries[i]; e.Outcome == outcomePending && e.Page != pageLife {
			e.Outcome = outcomeUnknown
		}
	}
	return h
}

// add records a call just sent.
func (h *callHistory) add(ctx app.Context, server, tool, id string, args json.RawMessage) {
	if len(args) > maxHistoryArgs {
		args = nil
	}
	e := historyEntry{Page: pageLife, ID: id, Server: server, Tool: tool, Args: args, Started: time.Now(), Outcome: outcomePending}
	h.entries = append([]historyEntry{e}, h.entries...)
	if len(h.entries) > maxHistory {
		h.entries = h.entries[:maxHistory]
	}
	h.save(ctx)
}

// settle records the outcome of the calls of this page life that ended.
func (h *callHistory) settle(ctx app.Context, calls []store.Call) {
	byID := make(map[string]store.Call, len(calls))
	for _, c := range calls {
		byID[c.ID] = c
	}
	changed := false
	for i := range h.entries {
		e := &h.entries[i]
		c, ok := byID[e.ID]
		if e.Outcome != outcomePending || e.Page != pageLife || !ok || c.Status == store.CallPending {
			continue
		}
		e.Outcome, e.Detail = callOutcome(c), wire.Sanitize(c.Error, maxHistoryDetail)
		if !c.Ended.IsZero() && !c.Started.IsZero() {
			e.Millis = c.Ended.Sub(c.Started).Milliseconds()
		}
		changed = true
	}
	if changed {
		h.save(ctx)
	}
}

// clear forgets the history of one server.
func (h *callHistory) clear(ctx app.Context, server string) {
	kept := h.entries[:0:0]
	for _, e := range h.entries {
		if e.Server != server {
			kept = append(kept, e)
		}
	}
	h.entries = kept
	h.save(ctx)
}

// of returns the entries of one server, newest first.
func (h *callHistory) of(server string) []historyEntry {
	var out []historyEntry
	for _, e := range h.entries {
		if e.Server == server {
			out = append(out, e)
		}
	}
	return out
}

func (h *callHistory) save(ctx app.Context) {
	ctx.SessionStorage().Set(historyKey+h.user, h.entries) // a full storage keeps the history of this page only
}

// callOutcome is a finished call's outcome in a word.
func callOutcome(c store.Call) string {
	switch {
	case c.Status == store.CallOK:
		return "ok"
	case callStatusWord(c) == "Cancelled":
		return "cancelled"
	}
	return "error"
}
