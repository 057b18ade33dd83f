package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// ErrTooManyChats is returned by AddChat when the user already has
// [wire.MaxChats] conversations.
var ErrTooManyChats = fmt.Errorf("too many conversations (at most %d)", wire.MaxChats)

// ErrChatTaken is returned by AddChat when the user already has a
// conversation with the same id.
var ErrChatTaken = errors.New("conversation id already in use")

// chatBody is the part of a [wire.Chat] kept as JSON in chats.body.
type chatBody struct {
	Servers  []string       `json:"servers,omitempty"`
	Tools    []wire.ToolRef `json:"tools,omitempty"`
	Always   []wire.ToolRef `json:"always,omitempty"`
	CodeMode bool           `json:"codeMode,omitempty"`
	Turns    int            `json:"turns"`

	AppContext []wire.ChatAppContext `json:"appContext,omitempty"`
}

// chatRow returns the columns of c that are not its key: the body, and the
// creation and update times (now when zero; the update time is the creation
// time for a new conversation).
func chatRow(c wire.Chat) (body []byte, created, updated int64, err error) {
	body, err = json.Marshal(chatBody{Servers: c.Servers, Tools: c.Tools, Always: c.Always, CodeMode: c.CodeMode, Turns: c.Turns, AppContext: c.AppContext})
	if err != nil {
		return nil, 0, 0, err
	}
	cr := c.Created
	if cr.IsZero() {
		cr = time.Now()
	}
	up := c.Updated
	if up.IsZero() {
		up = cr
	}
	return body, cr.UnixMilli(), up.UnixMilli(), nil
}

// AddChat stores a new conversation of the user. It returns ErrChatTaken
// when the user has one with c's id, and ErrTooManyChats when the user
// already has [wire.MaxChats]. A zero Created means now, a zero Updated
// the creation time; Running is not stored.
func (s *Store) AddChat(ctx context.Context, user string, c wire.Chat) error {
	return s.AddChats(ctx, user, []wire.Chat{c})
}

// AddChats stores new conversations of the user, all or none (a compare
// group is created whole), with the rules of AddChat.
func (s *Store) AddChats(ctx context.Context, user string, cs []wire.Chat) error {
	if user == "" {
		return errors.New("add chat: user is required")
	}
	for _, c := range cs {
		if c.ID == "" {
			return errors.New("add chat: id is required")
		}
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var have int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM chats WHERE user_id = ?`, user).Scan(&have); err != nil {
			return err
		}
		if have+len(cs) > wire.MaxChats {
			return ErrTooManyChats
		}
		for _, c := range cs {
			body, created, updated, err := chatRow(c)
			if err != nil {
				return err
			}
			const insert = `INSERT INTO chats (user_id, chat_id, title, model, group_id, body, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
			_, err = tx.ExecContext(ctx, insert, user, c.ID, c.Title, c.Model, c.Group, body, created, updated)
			if isPrimaryKeyViolation(err) {
				return fmt.Errorf("%s: %w", c.ID, ErrChatTaken)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add chat: %w", err)
	}
	return nil
}

// PutChat replaces the summary of the user's conversation c.ID (title,
// model, group, servers, tools, always, turns and update time; a zero
// Updated means now), or returns ErrNotFound. Its creation time stays.
func (s *Store) PutChat(ctx context.Context, user string, c wire.Chat) error {
	if c.Updated.IsZero() {
		c.Updated = time.Now()
	}
	body, _, updated, err := chatRow(c)
	if err != nil {
		return fmt.Errorf("put chat %s: %w", c.ID, err)
	}
	const update = `UPDATE chats SET title = ?, model = ?, group_id = ?, body = ?, updated_at = ? WHERE user_id = ? AND chat_id = ?`
	res, err := s.exec(ctx, update, c.Title, c.Model, c.Group, body, updated, user, c.ID)
	if err != nil {
		return fmt.Errorf("put chat %s: %w", c.ID, err)
	}
	return affected(res, "put chat "+c.ID)
}

// DeleteChat removes the user's conversation id with its turns, or returns
// ErrNotFound.
func (s *Store) DeleteChat(ctx context.Context, user, id string) error {
	res, err := s.exec(ctx, `DELETE FROM chats WHERE user_id = ? AND chat_id = ?`, user, id)
	if err != nil {
		return fmt.Errorf("delete chat %s: %w", id, err)
	}
	return affected(res, "delete chat "+id)
}

// affected returns ErrNotFound, wrapped in what, when res changed no row.
func affected(res sql.Result, what string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return nil
}

// chatColumns is the column list scanChat expects.
const chatColumns = `chat_id, title, model, group_id, body, created_at, updated_at`

// scanChat reads a row of chatColumns.
func scanChat(scan func(...any) error) (wire.Chat, error) {
	var c wire.Chat
	var body []byte
	var created, updated int64
	if err := scan(&c.ID, &c.Title, &c.Model, &c.Group, &body, &created, &updated); err != nil {
		return wire.Chat{}, err
	}
	var b chatBody
	if err := json.Unmarshal(body, &b); err != nil {
		return wire.Chat{}, fmt.Errorf("chat %s: malformed body: %w", c.ID, err)
	}
	c.Servers, c.Tools, c.Always, c.CodeMode, c.Turns, c.AppContext = b.Servers, b.Tools, b.Always, b.CodeMode, b.Turns, b.AppContext
	c.Created, c.Updated = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	return c, nil
}

// Chat returns the user's conversation id, or ErrNotFound.
func (s *Store) Chat(ctx context.Context, user, id string) (wire.Chat, error) {
	row := s.db.QueryRowContext(ctx, `SELECT `+chatColumns+` FROM chats WHERE user_id = ? AND chat_id = ?`, user, id)
	c, err := scanChat(row.Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return wire.Chat{}, fmt.Errorf("read chat %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return wire.Chat{}, fmt.Errorf("read chat %s: %w", id, err)
	}
	return c, nil
}

// Chats returns the user's conversations, the latest updated first.
func (s *Store) Chats(ctx context.Context, user string) ([]wire.Chat, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+chatColumns+` FROM chats WHERE user_id = ?
		ORDER BY updated_at DESC, created_at DESC, chat_id`, user)
	if err != nil {
		return nil, fmt.Errorf("list chats: %w", err)
	}
	defer rows.Close()
	out := []wire.Chat{}
	for rows.Next() {
		c, err := scanChat(rows.Scan)
		if err != nil {
			return nil, fmt.Errorf("list chats: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list chats: %w", err)
	}
	return out, nil
}

// searchText is what a search finds a turn by: the person's message, the
// names and URIs of its attachments and the answer's text, lowercased.
func searchText(t wire.ChatTurn) string {
	parts := []string{t.Text}
	for _, a := range t.Attachments {
		parts = append(parts, a.Name, a.URI)
	}
	for _, p := range t.Parts {
		if p.Kind == wire.PartText {
			parts = append(parts, p.Text)
		}
	}
	return strings.ToLower(strings.Join(parts, "\n"))
}

// PutTurn stores turn t of the user's conversation t.Chat, replacing the
// turn of the same id, or returns ErrNotFound when the user has no such
// conversation. Started is kept to the millisecond, in UTC.
func (s *Store) PutTurn(ctx context.Context, user string, t wire.ChatTurn) error {
	if t.ID == "" || t.Chat == "" || t.N < 0 {
		return errors.New("put turn: id and conversation are required, and its place must not be negative")
	}
	t.Started = time.UnixMilli(t.Started.UnixMilli()).UTC()
	body, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("put turn %s: %w", t.ID, err)
	}
	const upsert = `INSERT INTO chat_turns (user_id, chat_id, turn_id, n, status, body, search_text, started_at)
		SELECT user_id, chat_id, ?, ?, ?, ?, ?, ? FROM chats WHERE user_id = ? AND chat_id = ?
		ON CONFLICT (user_id, chat_id, turn_id) DO UPDATE SET n = excluded.n, status = excluded.status,
			body = excluded.body, search_text = excluded.search_text, started_at = excluded.started_at`
	res, err := s.exec(ctx, upsert, t.ID, t.N, string(t.Status), body, searchText(t), t.Started.UnixMilli(), user, t.Chat)
	if err != nil {
		return fmt.Errorf("put turn %s: %w", t.ID, err)
	}
	return affected(res, "put turn "+t.ID+" of chat "+t.Chat)
}

// Turns returns the turns of the user's conversation chat, oldest first, or
// ErrNotFound when the user has no such conversation.
func (s *Store) Turns(ctx context.Context, user, chat string) ([]wire.ChatTurn, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT t.body FROM chats c
		LEFT JOIN chat_turns t ON t.user_id = c.user_id AND t.chat_id = c.chat_id
		WHERE c.user_id = ? AND c.chat_id = ? ORDER BY t.n, t.started_at, t.turn_id`, user, chat)
	if err != nil {
		return nil, fmt.Errorf("read turns of %s: %w", chat, err)
	}
	defer rows.Close()
	found := false
	out := []wire.ChatTurn{}
	for rows.Next() {
		found = true
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("read turns of %s: %w", chat, err)
		}
		if body == nil { // the conversation has no turn
			continue
		}
		var t wire.ChatTurn
		if err := json.Unmarshal(body, &t); err != nil {
			return nil, fmt.Errorf("read turns of %s: malformed turn: %w", chat, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read turns of %s: %w", chat, err)
	}
	if !found {
		return nil, fmt.Errorf("read turns of %s: %w", chat, ErrNotFound)
	}
	return out, nil
}

// DeleteTurnsFrom removes the turns of the user's conversation chat from
// place n on (N >= n), or returns ErrNotFound when the user has no such
// conversation.
func (s *Store) DeleteTurnsFrom(ctx context.Context, user, chat string, n int) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM chats WHERE user_id = ? AND chat_id = ?`, user, chat).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM chat_turns WHERE user_id = ? AND chat_id = ? AND n >= ?`, user, chat, n)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete turns of %s: %w", chat, err)
	}
	return nil
}

// likeEscaper escapes the wildcards of LIKE and its escape character.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// SearchChats returns the ids of the user's conversations whose title or
// any turn's message, attachment names or answer text holds query, case
// aside (query is literal text: % and _ are no wildcards), the latest
// updated first. An empty query returns every conversation.
func (s *Store) SearchChats(ctx context.Context, user, query string) ([]string, error) {
	q := strings.ToLower(query)
	pattern := "%" + likeEscaper.Replace(q) + "%"
	// Titles are matched here rather than with LIKE, whose case folding
	// covers only ASCII; search_text is lowercased when stored.
	rows, err := s.db.QueryContext(ctx, `SELECT c.chat_id, c.title, EXISTS (SELECT 1 FROM chat_turns t
			WHERE t.user_id = c.user_id AND t.chat_id = c.chat_id AND t.search_text LIKE ? ESCAPE '\')
		FROM chats c WHERE c.user_id = ? ORDER BY c.updated_at DESC, c.created_at DESC, c.chat_id`, pattern, user)
	if err != nil {
		return nil, fmt.Errorf("search chats: %w", err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var id, title string
		var inTurns bool
		if err := rows.Scan(&id, &title, &inTurns); err != nil {
			return nil, fmt.Errorf("search chats: %w", err)
		}
		if inTurns || strings.Contains(strings.ToLower(title), q) {
			out = append(out, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search chats: %w", err)
	}
	return out, nil
}

// InterruptTurns marks every turn still running, of any user, interrupted
// (the relay stopped during it) and returns how many it marked. A relay
// that runs alone calls it when it starts, before it runs any turn.
func (s *Store) InterruptTurns(ctx context.Context) (int64, error) {
	return s.interruptTurns(ctx, "")
}

// InterruptTurnsOf marks user's turns still running interrupted and returns
// how many it marked. A replica calls it when it takes user, before it runs
// any of their turns: what still runs in the store ran on the replica that
// had them, which is gone or let them go.
func (s *Store) InterruptTurnsOf(ctx context.Context, user string) (int64, error) {
	return s.interruptTurns(ctx, user)
}

// interruptTurns marks the running turns of user, or of everyone when user
// is "", interrupted.
func (s *Store) interruptTurns(ctx context.Context, user string) (int64, error) {
	// The statuses are literal so that the partial index of running turns
	// applies.
	update := `UPDATE chat_turns SET status = '` + string(wire.TurnInterrupted) + `',
		body = ` + s.engine.setJSONStatus("body", string(wire.TurnInterrupted)) + `
		WHERE status = '` + string(wire.TurnRunning) + `'`
	var args []any
	if user != "" {
		update += ` AND user_id = ?`
		args = append(args, user)
	}
	res, err := s.exec(ctx, update, args...)
	if err != nil {
		return 0, fmt.Errorf("interrupt turns: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("interrupt turns: %w", err)
	}
	return n, nil
}
