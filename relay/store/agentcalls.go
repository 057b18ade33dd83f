package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// MaxAgentCalls is how many agent calls the log keeps per user; older ones
// are dropped as new ones come.
const MaxAgentCalls = 1000

// AgentCall is one logged agent call. It holds no arguments, results or answers.
type AgentCall struct {
	ID       int64
	User     string
	Agent    string
	KeyID    string
	Server   string
	Tool     string
	Start    time.Time
	Duration time.Duration
	Outcome  string
	Asked    bool
	Program  string // the program of a code-mode execute, cut
	ByCode   bool   // made by a code-mode program
}

// CallFilter narrows AgentCalls; empty fields match everything.
type CallFilter struct {
	Agent, Server, Outcome string
	Limit                  int // at most MaxAgentCalls; zero means MaxAgentCalls
}

// AddAgentCall logs c and drops the user's calls beyond the latest
// MaxAgentCalls. It returns c with its id.
func (s *Store) AddAgentCall(ctx context.Context, c AgentCall) (AgentCall, error) {
	out, err := s.AddAgentCalls(ctx, []AgentCall{c})
	if err != nil {
		return AgentCall{}, err
	}
	return out[0], nil
}

// AddAgentCalls logs cs in one transaction and drops their users' calls
// beyond the latest MaxAgentCalls. It returns cs with their ids, in order.
func (s *Store) AddAgentCalls(ctx context.Context, cs []AgentCall) ([]AgentCall, error) {
	out := make([]AgentCall, len(cs))
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		insert, err := tx.PrepareContext(ctx, `INSERT INTO agent_calls
			(user_id, agent, key_id, server_id, tool, started_at, duration_ms, outcome, asked, program, by_code)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING call_id`)
		if err != nil {
			return err
		}
		defer insert.Close()
		users := map[string]bool{}
		for i, c := range cs {
			err := insert.QueryRowContext(ctx, c.User, c.Agent, c.KeyID, c.Server, c.Tool, c.Start.UnixMilli(), c.Duration.Milliseconds(),
				c.Outcome, c.Asked, c.Program, c.ByCode).Scan(&c.ID)
			if err != nil {
				return err
			}
			out[i], users[c.User] = c, true
		}
		for u := range users {
			if _, err := tx.ExecContext(ctx, `DELETE FROM agent_calls WHERE user_id = ? AND call_id <= (
				SELECT call_id FROM agent_calls WHERE user_id = ? ORDER BY call_id DESC LIMIT 1 OFFSET ?)`,
				u, u, MaxAgentCalls); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("log agent calls: %w", err)
	}
	return out, nil
}

// AgentCalls lists the user's logged calls that match f, newest first.
func (s *Store) AgentCalls(ctx context.Context, user string, f CallFilter) ([]AgentCall, error) {
	where := []string{"user_id = ?"}
	args := []any{user}
	for _, m := range []struct{ col, val string }{{"agent", f.Agent}, {"server_id", f.Server}, {"outcome", f.Outcome}} {
		if m.val != "" {
			where = append(where, m.col+" = ?")
			args = append(args, m.val)
		}
	}
	limit := f.Limit
	if limit <= 0 || limit > MaxAgentCalls {
		limit = MaxAgentCalls
	}
	args = append(args, limit)
	rows, err := s.db.QueryContext(ctx, `SELECT call_id, user_id, agent, key_id, server_id, tool,
		started_at, duration_ms, outcome, asked, program, by_code FROM agent_calls WHERE `+strings.Join(where, " AND ")+`
		ORDER BY call_id DESC LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("list agent calls: %w", err)
	}
	defer rows.Close()
	var out []AgentCall
	for rows.Next() {
		var c AgentCall
		var start, ms int64
		if err := rows.Scan(&c.ID, &c.User, &c.Agent, &c.KeyID, &c.Server, &c.Tool, &start, &ms, &c.Outcome, &c.Asked, &c.Program, &c.ByCode); err != nil {
			return nil, fmt.Errorf("scan agent call: %w", err)
		}
		c.Start, c.Duration = time.UnixMilli(start).UTC(), time.Duration(ms)*time.Millisecond
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read agent calls: %w", err)
	}
	return out, nil
}
