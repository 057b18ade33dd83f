package web

import (
	"slices"
	"strconv"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// mergeTurns is a conversation's turns as the page shows them: the stored
// turns (oldest first) with the state's latest turn, live, over them. The
// live turn replaces the stored turn of the same id, and stands in for the
// stored turns from its place on (a retried turn keeps the place of the one
// it replaces); otherwise it is appended. stored is not changed.
func mergeTurns(stored []wire.ChatTurn, live *wire.ChatTurn) []wire.ChatTurn {
	if live == nil {
		return stored
	}
	if i := slices.IndexFunc(stored, func(t wire.ChatTurn) bool { return t.ID == live.ID }); i >= 0 {
		out := slices.Clone(stored[:i+1])
		out[i] = *live
		return out
	}
	out := make([]wire.ChatTurn, 0, len(stored)+1)
	for _, t := range stored {
		if t.N < live.N {
			out = append(out, t)
		}
	}
	return append(out, *live)
}

// chatReadKey names what a read of conversation c's stored turns is for:
// its count of turns and the id of its latest turn in the state ("" when
// the state holds none). The page reads again when the key changes.
func chatReadKey(c wire.Chat, live *wire.ChatTurn) string {
	id := ""
	if live != nil {
		id = live.ID
	}
	return strconv.Itoa(c.Turns) + "/" + id
}

// liveTurn returns the state's latest turn of conversation chat, or nil.
func liveTurn(turns []wire.ChatTurn, chat string) *wire.ChatTurn {
	for i := range turns {
		if turns[i].Chat == chat {
			return &turns[i]
		}
	}
	return nil
}

// turnCalls are the ids of the tool calls of turn t.
func turnCalls(t wire.ChatTurn) []string {
	var ids []string
	for _, p := range t.Parts {
		if p.Kind == wire.PartTool && p.Tool != nil {
			ids = append(ids, p.Tool.ID)
		}
	}
	return ids
}
