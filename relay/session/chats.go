package session

import (
	"context"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The chat's part of the state. The chat room (relay/chat) runs the
// person's conversations; the session carries their summaries and latest
// turns in the user's state, so that every dashboard sees a turn stream,
// and sequences the chat's changes with the rest.

// ChatLoader reads the summaries of a user's conversations when the
// session starts.
type ChatLoader func(ctx context.Context, user string) ([]wire.Chat, error)

// chatLoadTimeout bounds the read of the summaries at a session's start.
const chatLoadTimeout = 5 * time.Second

// loadChats puts the user's conversations into the state.
func (s *Session) loadChats() {
	if s.m.chats == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), chatLoadTimeout)
	defer cancel()
	chats, err := s.m.chats(ctx, s.user)
	if err != nil {
		s.m.logger.Error("load conversations", "user", s.user, "err", err)
		return
	}
	s.chat.Chats = chats
}

// PublishChat applies changes of the chat to the user's state and sends
// them to every dashboard as one delta. A change the state cannot take (a
// text of a turn that is not the latest) is an error, and nothing is sent.
func (s *Session) PublishChat(changes ...wire.Change) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.chat.ApplyAll(changes); err != nil {
		return err
	}
	s.publishLocked(changes)
	return nil
}

// Chats returns the summaries of the user's conversations and their
// latest turns in the state.
func (s *Session) Chats() ([]wire.Chat, []wire.ChatTurn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chat.Chats, s.chat.ChatTurns
}
