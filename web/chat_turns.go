package web

import (
	"slices"
	"strconv"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// shownTurns is a conversation's turns as the page shows them: the earlier
// ones, stored, as a part of stored itself (so that a view comparing them
// with its last render's sees at once that they did not change), and the
// latest. The state's live turn is the latest: it replaces the stored turn
// of the same id and stands in for the stored turns from its place on (a
// retried turn keeps the place of the one it replaces). Without one, the
// last stored turn is the latest.
func shownTurns(stored []wire.ChatTurn, live *wire.ChatTurn) (earlier []wire.ChatTurn, latest *wire.ChatTurn) {
	if live == nil {
		if len(stored) == 0 {
			return nil, nil
		}
		return stored[:len(stored)-1], &stored[len(stored)-1]
	}
	k := slices.IndexFunc(stored, func(t wire.ChatTurn) bool { return t.ID == live.ID || t.N >= live.N })
	if k < 0 {
		k = len(stored)
	}
	return stored[:k], live
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
