package web

import (
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// chatGroup is what the page shows for the selected conversation: it and
// the other conversations of its compare group, in a fixed order (created,
// then model, then id), or nil when no listed conversation is selected.
func chatGroup(chats []wire.Chat, selected string) []wire.Chat {
	i := slices.IndexFunc(chats, func(c wire.Chat) bool { return c.ID == selected })
	if i < 0 {
		return nil
	}
	if chats[i].Group == "" {
		return []wire.Chat{chats[i]}
	}
	var out []wire.Chat
	for _, c := range chats {
		if c.Group == chats[i].Group {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b wire.Chat) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		if c := strings.Compare(a.Model, b.Model); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// chatIDs are the ids of chats.
func chatIDs(chats []wire.Chat) []string {
	ids := make([]string, len(chats))
	for i, c := range chats {
		ids[i] = c.ID
	}
	return ids
}

// anyRunning reports whether a turn of one of chats runs.
func anyRunning(chats []wire.Chat) bool {
	return slices.ContainsFunc(chats, func(c wire.Chat) bool { return c.Running })
}

// splitAsks parts the waiting asks between the conversations shown, which
// show theirs inline, and the stack above the page, which shows the rest.
func splitAsks(asks []wire.Ask, shown []string) (inline map[string][]wire.Ask, stack []wire.Ask) {
	for _, a := range asks {
		if a.Chat != "" && slices.Contains(shown, a.Chat) {
			if inline == nil {
				inline = map[string][]wire.Ask{}
			}
			inline[a.Chat] = append(inline[a.Chat], a)
			continue
		}
		stack = append(stack, a)
	}
	return inline, stack
}

// asksOfCalls are the asks raised during the calls named by ids.
func asksOfCalls(asks []wire.Ask, ids []string) []wire.Ask {
	var out []wire.Ask
	for _, a := range asks {
		if slices.Contains(ids, a.Call) {
			out = append(out, a)
		}
	}
	return out
}
