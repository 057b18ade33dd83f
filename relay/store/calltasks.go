package store

import (
	"context"
	"fmt"
	"time"
)

// CallTask is the MCP task a running tool call follows: kept until the call
// ends, so that a restarted relay follows it again.
type CallTask struct {
	User    string
	Server  string
	Call    string // the call's id in the user's state
	Task    string // the server's task id
	Tool    string
	Started time.Time
}

// PutCallTask records a running call's task.
func (s *Store) PutCallTask(ctx context.Context, t CallTask) error {
	const insert = `INSERT INTO call_tasks (user_id, server_id, call_id, task_id, tool, started_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, call_id) DO UPDATE SET
			server_id = excluded.server_id, task_id = excluded.task_id, tool = excluded.tool, started_at = excluded.started_at`
	if _, err := s.exec(ctx, insert, t.User, t.Server, t.Call, t.Task, t.Tool, t.Started.UnixMilli()); err != nil {
		return fmt.Errorf("put call task %s: %w", t.Call, err)
	}
	return nil
}

// DeleteCallTask forgets the task of a call that ended; a call without one
// is not an error.
func (s *Store) DeleteCallTask(ctx context.Context, user, call string) error {
	if _, err := s.exec(ctx, `DELETE FROM call_tasks WHERE user_id = ? AND call_id = ?`, user, call); err != nil {
		return fmt.Errorf("delete call task %s: %w", call, err)
	}
	return nil
}

// CallTasks returns the recorded tasks of the user's server, oldest first.
func (s *Store) CallTasks(ctx context.Context, user, server string) ([]CallTask, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT call_id, task_id, tool, started_at FROM call_tasks
		WHERE user_id = ? AND server_id = ? ORDER BY started_at, call_id`, user, server)
	if err != nil {
		return nil, fmt.Errorf("list call tasks: %w", err)
	}
	defer rows.Close()
	var out []CallTask
	for rows.Next() {
		t := CallTask{User: user, Server: server}
		var started int64
		if err := rows.Scan(&t.Call, &t.Task, &t.Tool, &started); err != nil {
			return nil, fmt.Errorf("list call tasks: %w", err)
		}
		t.Started = time.UnixMilli(started)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list call tasks: %w", err)
	}
	return out, nil
}
