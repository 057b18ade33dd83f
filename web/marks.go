package web

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// newFor is how long an item that arrived while the list was shown stays marked.
const newFor = 4 * time.Second

// newMarks remembers the keys a list has shown, so the items that arrive
// later can be marked (CSS class is-new) for a moment. New items are appended
// where the relay puts them, so marking them never moves what is read.
type newMarks struct {
	seen  map[string]bool
	since map[string]time.Time // marked keys and when they arrived
}

// seed records the keys shown first; they are not new.
func (m *newMarks) seed(keys []string) {
	m.seen = make(map[string]bool, len(keys))
	m.since = map[string]time.Time{}
	for _, k := range keys {
		m.seen[k] = true
	}
}

// see records the keys shown now and reports whether any is new. The
// first keys of a list that was empty (a server still connecting when the
// list was first shown) are its first load, not news.
func (m *newMarks) see(keys []string, now time.Time) bool {
	if len(m.seen) == 0 {
		m.seed(keys)
		return false
	}
	added := false
	for _, k := range keys {
		if !m.seen[k] {
			m.seen[k] = true
			m.since[k] = now
			added = true
		}
	}
	return added
}

// update records the keys a list shows after a render and marks the new
// ones, unmarking them newFor later: what a list's OnUpdate does.
func (m *newMarks) update(ctx app.Context, keys []string) {
	if m.see(keys, time.Now()) {
		ctx.After(newFor, func(app.Context) { m.expire(time.Now()) })
	}
}

// expire unmarks the keys marked for newFor or longer.
func (m *newMarks) expire(now time.Time) {
	for k, t := range m.since {
		if now.Sub(t) >= newFor {
			delete(m.since, k)
		}
	}
}

// class returns "is-new" for a marked key.
func (m *newMarks) class(key string) string {
	if _, ok := m.since[key]; ok {
		return "is-new"
	}
	return ""
}
