package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/session"
)

// Tasks toward agents. An agent's tool call may run as a task: the agent
// gets a handle at once and polls for the result, so that a call waiting
// for a person (or a long one) does not hold its request open. The call
// itself is the same call through the server's owner; the task only holds
// its outcome. Each era has its own flow:
//
//   - 2025-11-25: the agent asks for a task with the call's `task`
//     parameter (the go-sdk does not decode it: liftTaskParam moves it to
//     the call's _meta first), the gateway answers {task}, and the agent
//     uses tasks/get, tasks/result (blocks until the end), tasks/list and
//     tasks/cancel. The gateway says so in its capabilities (tasks) and on
//     every tool (execution.taskSupport "optional").
//   - 2026-07-28 (the io.modelcontextprotocol/tasks extension): the agent
//     declares the extension on its request and the gateway decides: a call
//     that has not ended within Config.TaskAfter becomes a task (resultType
//     "task"); the agent uses tasks/get (the result inline once it ends),
//     tasks/update and tasks/cancel (acknowledgements).
//
// A view's tasks are its key's: another key never sees them. They end with
// the view (a revoked or expired key), and a finished one is forgotten
// after its TTL. Questions a server asks during a task go to the person as
// always; the task's status message says when it waits for one. A task's
// call hands no sampling to the agent (it has no request to hand it on).

const (
	// TasksExtension names the tasks extension of 2026-07-28.
	TasksExtension = "io.modelcontextprotocol/tasks"
	// legacyTasksEra is the one version of the tasks of 2025-11-25.
	legacyTasksEra = "2025-11-25"
	// taskParamKey carries, in a legacy call's _meta, the call's task
	// parameter (liftTaskParam).
	taskParamKey = "switchboard/task"
	// relatedTaskKey names, in a legacy task's result, its task.
	relatedTaskKey = "io.modelcontextprotocol/related-task"

	// DefaultTaskAfter is how long a 2026-07-28 call may run before the
	// gateway makes it a task.
	DefaultTaskAfter = 2 * time.Second
	defaultTaskTTL   = time.Hour
	maxTaskTTL       = 24 * time.Hour
	taskPollInterval = time.Second
	// maxTasks bounds the tasks a view holds, running or finished.
	maxTasks = 32
	// taskListPage is how many tasks one page of tasks/list holds.
	taskListPage = 50
)

// Task statuses.
const (
	taskWorking   = "working"
	taskCompleted = "completed"
	taskFailed    = "failed"
	taskCancelled = "cancelled"
)

var (
	errNoTask       = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no such task for this key: it never was, it expired, or its key's access ended"}
	errTooManyTasks = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "this key has too many tasks running: wait for some to end or cancel them"}
	errTaskEnded    = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the task has already ended"}
	errTaskCanceled = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task was cancelled"}
	errTaskForbids  = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "tasks are not part of this protocol version"}
)

// agentTask is one tool call run as a task.
type agentTask struct {
	id      string
	created time.Time
	ttl     time.Duration
	cancel  context.CancelFunc
	done    chan struct{} // closed when the call ended

	mu      sync.Mutex
	status  string
	message string // the status message
	waiting int    // asks of the call out to the person
	updated time.Time
	result  mcp.Result
	err     *jsonrpc.Error
}

// taskTable holds a view's tasks.
type taskTable struct {
	mu    sync.Mutex
	tasks map[string]*agentTask
}

// start runs call as a new task of ttl, its context ending with ctx. It
// fails when the table is full of running tasks.
func (tt *taskTable) start(ctx context.Context, ttl time.Duration, call func(context.Context, *agentTask) (mcp.Result, error)) (*agentTask, error) {
	b := make([]byte, 16)
	rand.Read(b)
	now := time.Now().UTC()
	ctx, cancel := context.WithTimeout(ctx, ttl)
	t := &agentTask{id: hex.EncodeToString(b), created: now, updated: now, ttl: ttl, status: taskWorking, cancel: cancel, done: make(chan struct{})}
	tt.mu.Lock()
	tt.sweepLocked(now)
	if len(tt.tasks) >= maxTasks && !tt.dropOldestEndedLocked() {
		tt.mu.Unlock()
		cancel()
		return nil, errTooManyTasks
	}
	if tt.tasks == nil {
		tt.tasks = map[string]*agentTask{}
	}
	tt.tasks[t.id] = t
	tt.mu.Unlock()
	go func() {
		defer cancel()
		res, err := call(withTask(ctx, t), t)
		t.end(res, err)
	}()
	return t, nil
}

// get returns task id.
func (tt *taskTable) get(id string) (*agentTask, bool) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.sweepLocked(time.Now())
	t, ok := tt.tasks[id]
	return t, ok
}

// forget drops task id (a call that ended before it became one).
func (tt *taskTable) forget(id string) {
	tt.mu.Lock()
	delete(tt.tasks, id)
	tt.mu.Unlock()
}

// list returns the tasks, newest first.
func (tt *taskTable) list() []*agentTask {
	tt.mu.Lock()
	tt.sweepLocked(time.Now())
	ts := slices.Collect(maps.Values(tt.tasks))
	tt.mu.Unlock()
	slices.SortFunc(ts, func(a, b *agentTask) int {
		if c := b.created.Compare(a.created); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	return ts
}

// sweepLocked forgets the tasks past their TTL (their calls were cut at it).
func (tt *taskTable) sweepLocked(now time.Time) {
	for id, t := range tt.tasks {
		if now.Sub(t.created) > t.ttl {
			t.cancel()
			delete(tt.tasks, id)
		}
	}
}

// dropOldestEndedLocked forgets the oldest task that ended, if any.
func (tt *taskTable) dropOldestEndedLocked() bool {
	var oldest *agentTask
	for _, t := range tt.tasks {
		if t.ended() && (oldest == nil || t.created.Before(oldest.created)) {
			oldest = t
		}
	}
	if oldest != nil {
		delete(tt.tasks, oldest.id)
	}
	return oldest != nil
}

// end records the call's outcome, unless the task was cancelled.
func (t *agentTask) end(res mcp.Result, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer close(t.done)
	if t.status != taskWorking {
		return
	}
	t.updated = time.Now().UTC()
	t.waiting = 0
	if err != nil {
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) {
			rpc = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		t.status, t.err, t.message = taskFailed, rpc, rpc.Message
		return
	}
	withoutServerInfo(res)
	t.status, t.result, t.message = taskCompleted, res, ""
}

// cancelWith cancels the task's call, the task then cancelled for why.
// It reports false when the task had already ended.
func (t *agentTask) cancelWith(why string) bool {
	t.mu.Lock()
	if t.status != taskWorking {
		t.mu.Unlock()
		return false
	}
	t.status, t.message, t.updated = taskCancelled, why, time.Now().UTC()
	t.mu.Unlock()
	t.cancel()
	return true
}

// ended reports whether the task is in a terminal status.
func (t *agentTask) ended() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status != taskWorking
}

// note hears of the asks of the task's call: while one is out, the task
// says it waits for a person.
func (t *agentTask) note(n session.AskNote) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status != taskWorking {
		return
	}
	if n == session.AskShown {
		t.waiting++
	} else if t.waiting > 0 {
		t.waiting--
	}
	t.message = ""
	if t.waiting > 0 {
		t.message = msgWaiting
	}
	t.updated = time.Now().UTC()
}

// progress takes a server's progress message as the task's status message.
func (t *agentTask) progress(msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status == taskWorking && t.waiting == 0 && msg != "" {
		t.message, t.updated = msg, time.Now().UTC()
	}
}

type taskKey struct{}

// withTask is ctx of a call run as task t.
func withTask(ctx context.Context, t *agentTask) context.Context {
	return context.WithValue(ctx, taskKey{}, t)
}

// taskOf is the task a call of ctx runs as, or nil.
func taskOf(ctx context.Context) *agentTask {
	t, _ := ctx.Value(taskKey{}).(*agentTask)
	return t
}

// taskRequest says whether the agent's call req is to run as a task: for
// 2025-11-25, whether it asked so (and for how long); for 2026-07-28,
// whether it declared the extension (the gateway then decides, runTask).
func taskRequest(req *mcp.CallToolRequest) (legacy bool, ttl time.Duration, ok bool) {
	era := sessionEra(req)
	switch {
	case era == legacyTasksEra:
		raw, ok := req.Params.Meta[taskParamKey]
		if !ok {
			return false, 0, false
		}
		var p legacyTaskParam
		if b, err := json.Marshal(raw); err == nil {
			json.Unmarshal(b, &p)
		}
		return true, taskTTL(p.TTL), true
	case newEra(era):
		return false, defaultTaskTTL, declaresTasks(req)
	}
	return false, 0, false
}

// declaresTasks reports whether a 2026-07-28 request declared the tasks
// extension.
func declaresTasks(req mcp.Request) bool {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil {
		return false
	}
	init := ss.InitializeParams()
	if init == nil || init.Capabilities == nil {
		return false
	}
	_, ok = init.Capabilities.Extensions[TasksExtension]
	return ok
}

// taskTTL is the TTL of a task the agent asked ms for.
func taskTTL(ms *int64) time.Duration {
	if ms == nil || *ms <= 0 {
		return defaultTaskTTL
	}
	return min(time.Duration(*ms)*time.Millisecond, maxTaskTTL)
}

// runTask runs the agent's tool call req (through next) as a task. A legacy
// task answers at once; a 2026-07-28 call answers with its result if it
// ends within Config.TaskAfter, else with the task.
func (v *view) runTask(ctx context.Context, req *mcp.CallToolRequest, legacy bool, ttl time.Duration, next mcp.MethodHandler) (mcp.Result, error) {
	params := *req.Params
	params.Meta = maps.Clone(params.Meta)
	delete(params.Meta, taskParamKey)
	delete(params.Meta, progressTokenKey) // the request ends before the call: no progress goes to it
	r := &mcp.CallToolRequest{Session: req.Session, Params: &params, Extra: req.Extra}
	t, err := v.tasks.start(v.ctx, ttl, func(tctx context.Context, t *agentTask) (mcp.Result, error) {
		stop := context.AfterFunc(v.ctx, func() { t.cancelWith("the agent key's access to the relay ended") })
		defer stop()
		res, err := next(tctx, "tools/call", r)
		if err != nil {
			if why := v.notReady(r.Params.Name); why != nil {
				return toolError(why), nil
			}
		}
		return res, err
	})
	if err != nil {
		return nil, err
	}
	if legacy {
		return createdLegacy(t), nil
	}
	timer := time.NewTimer(v.g.cfg.TaskAfter)
	defer timer.Stop()
	select {
	case <-t.done:
		v.tasks.forget(t.id)
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.err != nil {
			return nil, t.err
		}
		return t.result, nil
	case <-ctx.Done():
		t.cancelWith("the agent let go of the call before it became a task")
		return nil, ctx.Err()
	case <-timer.C:
		d := t.detailed("task")
		return &taskResult{body: d}, nil
	}
}

// progressTokenKey is where a request's _meta carries its progress token.
const progressTokenKey = "progressToken"
