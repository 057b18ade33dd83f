package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// ToolPolicies returns the user's approval policies, by server and tool.
func (s *Store) ToolPolicies(ctx context.Context, user string) ([]wire.ToolPolicyEntry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT server_id, tool, policy FROM tool_policies WHERE user_id = ? ORDER BY server_id, tool`, user)
	if err != nil {
		return nil, fmt.Errorf("list tool policies: %w", err)
	}
	defer rows.Close()
	out := []wire.ToolPolicyEntry{}
	for rows.Next() {
		var e wire.ToolPolicyEntry
		if err := rows.Scan(&e.Server, &e.Tool, &e.Policy); err != nil {
			return nil, fmt.Errorf("list tool policies: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tool policies: %w", err)
	}
	return out, nil
}

// SetToolPolicy stores the user's policy of one tool of a server, which
// must be the user's (else ErrNotFound); an empty Policy removes it.
// Removing the server removes its policies.
func (s *Store) SetToolPolicy(ctx context.Context, user string, e wire.ToolPolicyEntry) error {
	if e.Server == "" || e.Tool == "" {
		return errors.New("set tool policy: server and tool are required")
	}
	what := "set tool policy of " + e.Server + "/" + e.Tool
	switch e.Policy {
	case wire.PolicyRun, wire.PolicyAsk, wire.PolicyNever:
	case "":
		return s.deleteToolPolicy(ctx, user, e.ToolRef, what)
	default:
		return fmt.Errorf("%s: unknown policy %q", what, e.Policy)
	}
	const upsert = `INSERT INTO tool_policies (user_id, server_id, tool, policy)
		SELECT user_id, server_id, ?, ? FROM servers WHERE user_id = ? AND server_id = ?
		ON CONFLICT (user_id, server_id, tool) DO UPDATE SET policy = excluded.policy`
	res, err := s.exec(ctx, upsert, e.Tool, string(e.Policy), user, e.Server)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return affected(res, what)
}

// deleteToolPolicy removes the user's policy of tool, if any; ErrNotFound
// when the server is not the user's.
func (s *Store) deleteToolPolicy(ctx context.Context, user string, tool wire.ToolRef, what string) error {
	const del = `DELETE FROM tool_policies WHERE user_id = ? AND server_id = ? AND tool = ?`
	res, err := s.exec(ctx, del, user, tool.Server, tool.Tool)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n, err := res.RowsAffected(); err == nil && n > 0 {
		return nil
	}
	var known bool
	err = s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM servers WHERE user_id = ? AND server_id = ?)`, user, tool.Server).Scan(&known)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if !known {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return nil
}
