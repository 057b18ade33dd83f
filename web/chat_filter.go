package web

import (
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// orderChats returns the conversations latest updated first (ties by id),
// leaving chats as it is.
func orderChats(chats []wire.Chat) []wire.Chat {
	out := slices.Clone(chats)
	slices.SortStableFunc(out, func(a, b wire.Chat) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// chatFilter narrows the list of conversations to a search: Query as typed,
// and the conversations the relay found for the query FoundFor. Until the
// relay answers for the query typed, titles alone are matched.
type chatFilter struct {
	Query    string
	Found    []string
	FoundFor string
}

// active reports whether the filter narrows the list.
func (f chatFilter) active() bool { return strings.TrimSpace(f.Query) != "" }

// keep reports whether conversation c stays in the list.
func (f chatFilter) keep(c wire.Chat) bool {
	q := strings.TrimSpace(f.Query)
	if q == "" {
		return true
	}
	if strings.Contains(strings.ToLower(c.Title), strings.ToLower(q)) {
		return true
	}
	return f.FoundFor == q && slices.Contains(f.Found, c.ID)
}

// apply returns the conversations of chats that f keeps, in their order.
func (f chatFilter) apply(chats []wire.Chat) []wire.Chat {
	if !f.active() {
		return chats
	}
	var out []wire.Chat
	for _, c := range chats {
		if f.keep(c) {
			out = append(out, c)
		}
	}
	return out
}
