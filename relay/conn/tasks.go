package conn

import (
	"context"
	"encoding/json"
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

// Task is a task a tool call runs as, as the server reported it last: its
// id, status (one of wire's Task* statuses, or any other word) and status
// message, unsanitized.
type Task struct {
	ID            string
	Status        wire.TaskStatus
	StatusMessage string
}

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
// not declare task-augmented tools/call, is a [BadRequest].
func (c *Conn) TaskMode(name string) (task bool, err error) {
	support := c.taskSupport(name)
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
	return c.taskSupport(name) == wire.TaskSupportRequired
}

// taskSupport is tool name's execution.taskSupport as listed last, which
// may be none of wire's (then the tool runs plainly).
func (c *Conn) taskSupport(name string) wire.TaskSupport {
	return wire.TaskSupport(c.ra.Tasks.Support(name))
}

// uncallableNoTasks is why a tool that requires tasks cannot be called.
const uncallableNoTasks = "this tool runs only as a task, and the server did not declare task support for tools/call"

// CallToolTask calls the tool p names as a task, with the checks of
// [Conn.CallTool]. created (when not nil) is called once with the task as
// soon as the server created it, then status (when not nil) with each
// status seen; the result is the task's, fetched with tasks/result. When
// progress is not nil it gets the task's progress notifications. A server
// that runs the call without a task returns its result at once.
func (c *Conn) CallToolTask(ctx context.Context, p *mcp.CallToolParams, progress func(*mcp.ProgressNotificationParams), created, status func(Task)) (*mcp.CallToolResult, error) {
	if created == nil {
		created = func(Task) {}
	}
	if status == nil {
		status = func(Task) {}
	}
	arguments, err := objectArgs(p.Arguments)
	if err != nil {
		return nil, err
	}
	s, err := c.current()
	if err != nil {
		return nil, err
	}
	if err := c.knownTool(s, p.Name); err != nil {
		return nil, err
	}
	params := &taskCallParams{Name: p.Name, Arguments: arguments, Task: taskParams{TTL: taskTTL.Milliseconds()}}
	params.Meta = withoutProgressToken(p.Meta)
	if progress != nil {
		token, stop := c.progress.add(progress)
		defer stop()
		if params.Meta == nil {
			params.Meta = mcp.Meta{}
		}
		params.Meta[progressTokenKey] = token
	}
	t, plain, err := c.createTask(ctx, s, params)
	switch {
	case err != nil:
		return nil, err
	case plain != nil: // the server ran the call without a task
		return sized(plain, s.maxResult)
	}
	created(taskOf(t))
	return c.followTask(ctx, t, status)
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
func (c *Conn) WatchTask(ctx context.Context, taskID string, status func(Task)) (*mcp.CallToolResult, error) {
	return c.followTask(ctx, taskInfo{TaskID: taskID, Status: string(wire.TaskWorking), StatusMessage: "following the task again"}, status)
}

// followTask polls task t at the server's poll interval, and wakes on its
// status notifications, until it needs input or ends; then it fetches the
// result with tasks/result (which blocks while the server asks for input).
// A connection lost meanwhile is waited for.
func (c *Conn) followTask(ctx context.Context, t taskInfo, status func(Task)) (*mcp.CallToolResult, error) {
	notes, stop := c.ra.Tasks.Watch(t.TaskID)
	defer stop()
	last := Task{}
	report := func(t taskInfo) {
		if now := taskOf(t); now != last {
			last = now
			status(now)
		}
	}
	report(t)
	for {
		if wire.TaskStatus(t.Status) == wire.TaskCancelled {
			return nil, newError(Cancelled, "the server cancelled the task")
		}
		if wire.TaskStatus(t.Status) != wire.TaskWorking {
			res, err := c.taskResult(ctx, t.TaskID)
			if err == nil || !hasCode(err, NotReady) {
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
		case hasCode(err, NotReady):
			continue // reconnecting: poll again later
		case err != nil:
			return nil, err
		}
		t = next
		report(t)
	}
}

// taskResult fetches a task's result.
func (c *Conn) taskResult(ctx context.Context, id string) (*mcp.CallToolResult, error) {
	return onLive(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*mcp.CallToolResult, error) {
		return mcp.CallCustomMethod[*taskIDParams, *mcp.CallToolResult](ctx, cs, methodTaskResult, &taskIDParams{TaskID: id})
	})
}

// getTask asks the server for a task's status.
func (c *Conn) getTask(ctx context.Context, id string) (taskInfo, error) {
	res, err := onLive(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*taskResult, error) {
		return mcp.CallCustomMethod[*taskIDParams, *taskResult](ctx, cs, methodTasksGet, &taskIDParams{TaskID: id})
	})
	if err != nil {
		return taskInfo{}, err
	}
	if res.TaskID != id {
		return taskInfo{}, newError(Unusable, "the server answered tasks/get for another task")
	}
	return res.taskInfo, nil
}

// CancelTask asks the server to cancel a task.
func (c *Conn) CancelTask(ctx context.Context, id string) error {
	ctx, cancel := context.WithTimeout(ctx, taskCancelTimeout)
	defer cancel()
	_, err := onLive(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*taskResult, error) {
		return mcp.CallCustomMethod[*taskIDParams, *taskResult](ctx, cs, methodTaskCancel, &taskIDParams{TaskID: id})
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

// taskOf is a task as a caller sees it.
func taskOf(t taskInfo) Task {
	return Task{ID: t.TaskID, Status: wire.TaskStatus(t.Status), StatusMessage: t.StatusMessage}
}
