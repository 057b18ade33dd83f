package chat

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The turn in the user's state. A run changes its turn and the state
// together, under its mu, so that every dashboard sees the changes in the
// turn's order: a text grows by KindChatText, a card is put by
// KindChatPart, the status by KindChatEnd.

// change is a chat change of kind for conversation chat with value v.
func change(kind wire.ChangeKind, chat string, v any) wire.Change {
	b, err := json.Marshal(v)
	if err != nil { // the chat's types always marshal
		panic(err)
	}
	return wire.Change{Kind: kind, Key: chat, Value: b}
}

// turnChange puts the whole turn in the state.
func (rn *run) turnChange() wire.Change {
	return change(wire.KindChatTurn, rn.chat.ID, rn.turn)
}

// publishLocked sends changes of the turn, once it is shown (before, they
// are part of the turn when it is shown); called under rn.mu.
func (rn *run) publishLocked(changes ...wire.Change) {
	if !rn.shown {
		return
	}
	if err := rn.r.session(rn.user).PublishChat(changes...); err != nil {
		rn.r.log.Error("publish a chat change", "user", rn.user, "chat", rn.chat.ID, "err", err)
	}
}

// appendText adds text of kind (text or reasoning) to the turn: to its
// last part when that is of the same kind, else as a new part.
func (rn *run) appendText(kind wire.PartKind, text string) {
	if text == "" {
		return
	}
	rn.mu.Lock()
	defer rn.mu.Unlock()
	parts := rn.turn.Parts
	i := len(parts)
	if i > 0 && parts[i-1].Kind == kind {
		i--
		rn.turn.Parts[i].Text += text
	} else {
		rn.turn.Parts = append(rn.turn.Parts, wire.ChatPart{Kind: kind, Text: text})
	}
	rn.publishLocked(change(wire.KindChatText, rn.chat.ID, wire.ChatText{Turn: rn.turn.ID, Index: i, Kind: kind, Text: text}))
}

// addPart appends part to the turn and returns its index.
func (rn *run) addPart(part wire.ChatPart) int {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	i := len(rn.turn.Parts)
	rn.turn.Parts = append(rn.turn.Parts, part)
	rn.publishLocked(change(wire.KindChatPart, rn.chat.ID, wire.ChatPartChange{Turn: rn.turn.ID, Index: i, Part: part}))
	return i
}

// editTool changes the tool call of part i with edit and shows it.
func (rn *run) editTool(i int, edit func(*wire.ChatToolCall)) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	tc := *rn.turn.Parts[i].Tool
	edit(&tc)
	rn.turn.Parts[i].Tool = &tc
	rn.publishLocked(change(wire.KindChatPart, rn.chat.ID, wire.ChatPartChange{Turn: rn.turn.ID, Index: i, Part: rn.turn.Parts[i]}))
}

// putTool shows card as part i, the card of its call.
func (rn *run) putTool(i int, card *wire.ChatToolCall) {
	rn.editTool(i, func(c *wire.ChatToolCall) { *c = *card })
}

// notice adds a line from the relay to the turn.
func (rn *run) notice(text string) {
	rn.addPart(wire.ChatPart{Kind: wire.PartNotice, Text: text})
}

// setWaiting shows the servers the turn waits for.
func (rn *run) setWaiting(servers []string) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	rn.turn.Waiting = servers
	rn.publishLocked(change(wire.KindChatEnd, rn.chat.ID, wire.ChatTurnEnd{Turn: rn.turn.ID, Status: wire.TurnRunning, Waiting: servers}))
}

// putChatLocked stores a conversation's summary and shows it, with more
// changes; under r.edit. A new turn of the conversation
// (a KindChatTurn in more) may push the oldest finished turn of another
// out of the state.
func (r *Room) putChatLocked(ctx context.Context, user string, chat wire.Chat, more ...wire.Change) error {
	if err := r.storeChat(ctx, user, chat); err != nil {
		return err
	}
	return r.showChat(user, chat, more...)
}

// storeChat stores a conversation's summary; under r.edit.
func (r *Room) storeChat(ctx context.Context, user string, chat wire.Chat) error {
	stored := chat
	stored.Running = false
	if err := r.cfg.Store.PutChat(ctx, user, stored); err != nil {
		return wire.NewError(wire.CodeInternal, "could not save the conversation")
	}
	return nil
}

// showChat shows a conversation's summary with more changes; under r.edit.
func (r *Room) showChat(user string, chat wire.Chat, more ...wire.Change) error {
	changes := append([]wire.Change{change(wire.KindChat, chat.ID, chat)}, more...)
	s := r.session(user)
	if slices.ContainsFunc(more, func(c wire.Change) bool { return c.Kind == wire.KindChatTurn }) {
		_, turns := s.Chats()
		changes = append(changes, evictions(turns, chat.ID)...)
	}
	return s.PublishChat(changes...)
}

// evictions remove the oldest finished turns of the state beyond
// wire.MaxLiveChatTurns, when the latest turn of chat is put.
func evictions(turns []wire.ChatTurn, chat string) []wire.Change {
	var finished []wire.ChatTurn
	for _, t := range turns {
		if t.Chat != chat && t.Status != wire.TurnRunning {
			finished = append(finished, t)
		}
	}
	extra := len(finished) - (wire.MaxLiveChatTurns - 1)
	if extra <= 0 {
		return nil
	}
	slices.SortFunc(finished, func(a, b wire.ChatTurn) int { return a.Started.Compare(b.Started) })
	out := make([]wire.Change, 0, extra)
	for _, t := range finished[:extra] {
		out = append(out, wire.Change{Kind: wire.KindChatTurn, Key: t.Chat, Remove: true})
	}
	return out
}
