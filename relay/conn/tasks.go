package conn

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/readalong"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// JSON-RPC methods of tasks the connection sends.
const (
	methodTasksGet   = "tasks/get"
	methodTaskResult = "tasks/result"
	methodTaskCancel = "tasks/cancel"
	methodToolsCall  = "tools/call"
)

// taskInfo is a task as the server reports it (in a result, or read
// along).
type taskInfo = readalong.Task

// Task polling and creation limits.
const (
	defaultPollInterval = time.Second
	minPollInterval     = 100 * time.Millisecond
	maxPollInterval     = 30 * time.Second
	taskCreateTimeout   = 30 * time.Second
	taskCancelTimeout   = 10 * time.Second
	taskTTL             = 24 * time.Hour // asked for; the server may shorten it
)

// taskCallParams are the params of a task-augmented tools/call.
type taskCallParams struct {
	mcp.ParamsBase
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Task      taskParams      `json:"task"`
}

type taskParams struct {
	TTL int64 `json:"ttl"`
}

// progressTokenKey is where a request's _meta carries its progress token.
const progressTokenKey = "progressToken"

// taskIDParams are the params of tasks/get, tasks/result and tasks/cancel.
type taskIDParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// taskResult is the result of tasks/get and tasks/cancel.
type taskResult struct {
	mcp.ResultBase
	taskInfo
}

// createdResult stands for the CreateTaskResult of a task-augmented
// tools/call as the go-sdk decodes it; the task itself comes from the
// read-along ([readalong.Tasks]).
type createdResult = mcp.CallToolResult

// registerTaskMethods lets client send the task methods.
func registerTaskMethods(client *mcp.Client) {
	// These names are not standard methods of the go-sdk: registering cannot fail.
	_ = mcp.AddSendingCustomMethod[*taskIDParams, *taskResult](client, methodTasksGet)
	_ = mcp.AddSendingCustomMethod[*taskIDParams, *taskResult](client, methodTaskCancel)
	_ = mcp.AddSendingCustomMethod[*taskIDParams, *mcp.CallToolResult](client, methodTaskResult)
}

// TaskMode says how tool name must be called: as a task (task) or plainly.
// A tool the relay cannot call, one that requires tasks on a server that did
// not declare task-augmented tools/call, is an error.
func (c *Conn) TaskMode(name string) (task bool, err error) {
	support := c.ra.Tasks.Support(name)
	declared := c.ra.Tasks.ToolCalls()
	switch {
	case support == wire.TaskSupportRequired && !declared:
		return false, newError(BadRequest, uncallableNoTasks)
	case support == wire.TaskSupportRequired, support == wire.TaskSupportOptional && declared:
		return true, nil
	}
	return false, nil
}

// TaskRequired reports whether tool name runs only as a task.
func (c *Conn) TaskRequired(name string) bool {
	return c.ra.Tasks.Support(name) == wire.TaskSupportRequired
}

// uncallableNoTasks is why a tool that requires tasks cannot be called.
const uncallableNoTasks = "this tool runs only as a task, and the server did not declare task support for tools/call"

// CallToolTask calls tool name as a task. created (when not nil) is called
// once with the task as soon as the server created it, then status (when
// not nil) with each status seen;
// the result is the task's, fetched with tasks/result. When progress is not
// nil it gets the task's progress notifications. Errors are [*Error].
func (c *Conn) CallToolTask(ctx context.Context, name string, args json.RawMessage, progress func(wire.Progress), created, status func(wire.CallTask)) (*wire.CallToolResult, error) {
	if created == nil {
		created = func(wire.CallTask) {}
	}
	if status == nil {
		status = func(wire.CallTask) {}
	}
	arguments, err := objectArgs(args)
	if err != nil {
		return nil, err
	}
	s, err := c.current()
	if err != nil {
		return nil, err
	}
	if !c.knows(func() map[string]bool { return s.tools }, name) {
		return nil, newError(NotFound, fmt.Sprintf("the server has no tool %q", name))
	}
	params := &taskCallParams{Name: name, Arguments: arguments, Task: taskParams{TTL: taskTTL.Milliseconds()}}
	if progress != nil {
		token, stop := c.progress.add(progress)
		defer stop()
		params.Meta = mcp.Meta{progressTokenKey: token}
	}
	t, plain, err := c.createTask(ctx, s, params)
	switch {
	case err != nil:
		return nil, err
	case plain != nil: // the server ran the call without a task
		out, err := convertCallToolResult(plain)
		if err != nil {
			return nil, unusableAnswer(err)
		}
		c.checkOutput(s, name, out)
		return sized(out, s.maxResult)
	}
	created(wireTask(t))
	out, err := c.followTask(ctx, t, status)
	if err == nil {
		c.checkOutput(s, name, out)
	}
	return out, err
}

// createTask sends the task-augmented tools/call and returns the task the
// server created, or the plain result of a server that ignored the task
// (as the specification says a server without task support does).
func (c *Conn) createTask(ctx context.Context, s *session, params *taskCallParams) (taskInfo, *mcp.CallToolResult, error) {
	ch, done := c.ra.Tasks.Expect()
	defer done()
	ctx, cancel := context.WithTimeout(ctx, taskCreateTimeout)
	defer cancel()
	res, err := do(ctx, s, func(ctx context.Context) (*createdResult, error) {
		return mcp.CallCustomMethod[*taskCallParams, *createdResult](ctx, s.cs, methodToolsCall, params)
	})
	if err != nil {
		return taskInfo{}, nil, err
	}
	select {
	case t := <-ch:
		return t, nil, nil
	default:
	}
	if len(res.Content) > 0 || res.StructuredContent != nil || res.IsError {
		return taskInfo{}, res, nil
	}
	return taskInfo{}, nil, newError(Unusable, "the server answered the task call without creating a task")
}

// WatchTask follows a task created earlier (before a reconnect or a restart
// of the relay) until its result; status gets each status seen.
func (c *Conn) WatchTask(ctx context.Context, taskID string, status func(wire.CallTask)) (*wire.CallToolResult, error) {
	return c.followTask(ctx, taskInfo{TaskID: taskID, Status: wire.TaskWorking, StatusMessage: "following the task again"}, status)
}

// followTask polls task t at the server's poll interval, and wakes on its
// status notifications, until it needs input or ends; then it fetches the
// result with tasks/result (which blocks while the server asks for input).
// A connection lost meanwhile is waited for.
func (c *Conn) followTask(ctx context.Context, t taskInfo, status func(wire.CallTask)) (*wire.CallToolResult, error) {
	notes, stop := c.ra.Tasks.Watch(t.TaskID)
	defer stop()
	last := wire.CallTask{}
	report := func(t taskInfo) {
		if w := wireTask(t); w != last {
			last = w
			status(w)
		}
	}
	report(t)
	for {
		if t.Status == wire.TaskCancelled {
			return nil, newError(Cancelled, "the server cancelled the task")
		}
		if t.Status != wire.TaskWorking {
			res, err := c.taskResult(ctx, t.TaskID)
			if err == nil || !isNotReady(err) {
				return res, err
			}
		}
		timer := time.NewTimer(pollInterval(t))
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, newError(Cancelled, "cancelled")
		case <-c.ctx.Done():
			timer.Stop()
			return nil, newError(NotReady, "the connection closed")
		case n := <-notes:
			timer.Stop()
			t = n
			report(t)
			continue
		case <-timer.C:
		}
		next, err := c.getTask(ctx, t.TaskID)
		switch {
		case isNotReady(err):
			continue // reconnecting: poll again later
		case err != nil:
			return nil, err
		}
		t = next
		report(t)
	}
}

// taskResult fetches a task's result; a cancelled task is a cancelled error.
func (c *Conn) taskResult(ctx context.Context, id string) (*wire.CallToolResult, error) {
	s, err := c.current()
	if err != nil {
		return nil, err
	}
	res, err := do(ctx, s, func(ctx context.Context) (*mcp.CallToolResult, error) {
		return mcp.CallCustomMethod[*taskIDParams, *mcp.CallToolResult](ctx, s.cs, methodTaskResult, &taskIDParams{TaskID: id})
	})
	if err != nil {
		return nil, err
	}
	out, err := convertCallToolResult(res)
	if err != nil {
		return nil, unusableAnswer(err)
	}
	return sized(out, s.maxResult)
}

// getTask asks the server for a task's status.
func (c *Conn) getTask(ctx context.Context, id string) (taskInfo, error) {
	s, err := c.current()
	if err != nil {
		return taskInfo{}, err
	}
	res, err := do(ctx, s, func(ctx context.Context) (*taskResult, error) {
		return mcp.CallCustomMethod[*taskIDParams, *taskResult](ctx, s.cs, methodTasksGet, &taskIDParams{TaskID: id})
	})
	if err != nil {
		return taskInfo{}, err
	}
	if res.TaskID != id {
		return taskInfo{}, newError(Unusable, "the server answered tasks/get for another task")
	}
	return res.taskInfo, nil
}

// CancelTask asks the server to cancel a task. Errors are [*Error].
func (c *Conn) CancelTask(ctx context.Context, id string) error {
	s, err := c.current()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, taskCancelTimeout)
	defer cancel()
	_, err = do(ctx, s, func(ctx context.Context) (*taskResult, error) {
		return mcp.CallCustomMethod[*taskIDParams, *taskResult](ctx, s.cs, methodTaskCancel, &taskIDParams{TaskID: id})
	})
	return err
}

// pollInterval is the server's suggested interval, within bounds.
func pollInterval(t taskInfo) time.Duration {
	if t.PollInterval == nil || *t.PollInterval <= 0 {
		return defaultPollInterval
	}
	d := time.Duration(*t.PollInterval * float64(time.Millisecond))
	return min(max(d, minPollInterval), maxPollInterval)
}

// wireTask is a task as the dashboard sees it.
func wireTask(t taskInfo) wire.CallTask {
	return wire.CallTask{ID: line(t.TaskID, maxKeyRunes), Status: line(t.Status, maxKeyRunes), StatusMessage: line(t.StatusMessage, maxProgressRunes)}
}

// isNotReady reports whether err says the server is not connected now.
func isNotReady(err error) bool {
	return hasCode(err, NotReady)
}
