package wire

import (
	"encoding/json"
	"fmt"
	"slices"
)

// applyChat folds a change of the chat (see chat.go) into the snapshot.
func (e *editor) applyChat(c Change) error {
	s := e.s
	switch c.Kind {
	case KindChat:
		e.own(copyKey{kind: KindChat}, func() { s.Chats = slices.Clone(s.Chats) })
		var err error
		s.Chats, err = applyItem(s.Chats, c, func(ch Chat) string { return ch.ID })
		if err == nil && c.Remove {
			e.ownTurns()
			s.ChatTurns = slices.DeleteFunc(s.ChatTurns, func(t ChatTurn) bool { return t.Chat == c.Key })
		}
		return err
	case KindChatTurn:
		e.ownTurns()
		var err error
		s.ChatTurns, err = applyItem(s.ChatTurns, c, func(t ChatTurn) string { return t.Chat })
		return err
	}
	var turn string
	var edit func(t *ChatTurn) error
	switch c.Kind {
	case KindChatText:
		var v ChatText
		if err := json.Unmarshal(c.Value, &v); err != nil {
			return fmt.Errorf("%s %q: %w", c.Kind, c.Key, err)
		}
		turn, edit = v.Turn, func(t *ChatTurn) error {
			switch {
			case v.Index == len(t.Parts):
				t.Parts = append(t.Parts, ChatPart{Kind: v.Kind, Text: v.Text})
			case v.Index >= 0 && v.Index < len(t.Parts) && t.Parts[v.Index].Kind != PartTool:
				t.Parts[v.Index].Text += v.Text
			default:
				return fmt.Errorf("%s %q: no text part %d", c.Kind, c.Key, v.Index)
			}
			return nil
		}
	case KindChatPart:
		var v ChatPartChange
		if err := json.Unmarshal(c.Value, &v); err != nil {
			return fmt.Errorf("%s %q: %w", c.Kind, c.Key, err)
		}
		turn, edit = v.Turn, func(t *ChatTurn) error {
			switch {
			case v.Index == len(t.Parts):
				t.Parts = append(t.Parts, v.Part)
			case v.Index >= 0 && v.Index < len(t.Parts):
				t.Parts[v.Index] = v.Part
			default:
				return fmt.Errorf("%s %q: no part %d", c.Kind, c.Key, v.Index)
			}
			return nil
		}
	case KindChatEnd:
		var v ChatTurnEnd
		if err := json.Unmarshal(c.Value, &v); err != nil {
			return fmt.Errorf("%s %q: %w", c.Kind, c.Key, err)
		}
		turn, edit = v.Turn, func(t *ChatTurn) error {
			t.Status, t.Error, t.Waiting, t.Usage = v.Status, v.Error, v.Waiting, v.Usage
			t.FirstToken, t.Duration = v.FirstToken, v.Duration
			return nil
		}
	}
	i := slices.IndexFunc(s.ChatTurns, func(t ChatTurn) bool { return t.Chat == c.Key })
	if i < 0 || s.ChatTurns[i].ID != turn {
		return fmt.Errorf("%s %q: turn %q is not the conversation's latest", c.Kind, c.Key, turn)
	}
	e.ownTurns()
	t := &s.ChatTurns[i]
	e.own(copyKey{server: t.ID, kind: KindChatPart}, func() { t.Parts = slices.Clone(t.Parts) })
	return edit(t)
}

// ownTurns gives the snapshot its own list of turns.
func (e *editor) ownTurns() {
	e.own(copyKey{kind: KindChatTurn}, func() { e.s.ChatTurns = slices.Clone(e.s.ChatTurns) })
}
