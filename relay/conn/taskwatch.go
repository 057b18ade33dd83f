package conn

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Tasks (MCP 2025-11-25, experimental) are not modelled by the go-sdk: it
// drops a server's tasks capability, a tool's execution.taskSupport and the
// task of a CreateTaskResult when it decodes them. So a taskWatch reads
// along the messages the server sends (the same read-along as the schema
// orders) and keeps what tasks need: the tasks capability of the initialize
// result, each listed tool's task support, the task a task-augmented
// tools/call created, and notifications/tasks/status. Only one task
// creation runs at a time per connection, so the one CreateTaskResult seen
// while it runs is its answer.

// JSON-RPC facts of tasks.
const (
	methodTaskStatus = "notifications/tasks/status"
	methodTasksGet   = "tasks/get"
	methodTaskResult = "tasks/result"
	methodTaskCancel = "tasks/cancel"
	methodToolsCall  = "tools/call"
)

// taskInfo is a task as the server reports it.
type taskInfo struct {
	TaskID        string   `json:"taskId"`
	Status        string   `json:"status"`
	StatusMessage string   `json:"statusMessage,omitempty"`
	PollInterval  *float64 `json:"pollInterval,omitempty"` // milliseconds
}

// serverTasks is the tasks capability a server declared.
type serverTasks struct {
	List     *struct{} `json:"list"`
	Cancel   *struct{} `json:"cancel"`
	Requests *struct {
		Tools *struct {
			Call *struct{} `json:"call"`
		} `json:"tools"`
	} `json:"requests"`
}

// taskWatch is the read-along state of one connection's tasks. The zero
// value is ready; it is safe for concurrent use.
type taskWatch struct {
	create sync.Mutex // held while a task-augmented tools/call runs

	mu       sync.Mutex
	caps     *serverTasks             // from the last initialize result
	support  map[string]string        // tool name → execution.taskSupport, from tools/list
	created  chan taskInfo            // the pending creation's answer, buffered 1; nil when none
	watchers map[string]chan taskInfo // task id → status notifications, buffered 1
}

// scan looks at one message or batch the server sent.
func (w *taskWatch) scan(msg []byte) {
	if !bytes.Contains(msg, []byte(`"serverInfo"`)) && !bytes.Contains(msg, []byte(`"tools"`)) &&
		!bytes.Contains(msg, []byte(`"taskId"`)) {
		return
	}
	if trimmed := bytes.TrimLeft(msg, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(msg, &batch) == nil {
			for _, m := range batch {
				w.scanMessage(m)
			}
		}
		return
	}
	w.scanMessage(msg)
}

func (w *taskWatch) scanMessage(msg []byte) {
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result *struct {
			ServerInfo   json.RawMessage `json:"serverInfo"`
			Capabilities *struct {
				Tasks *serverTasks `json:"tasks"`
			} `json:"capabilities"`
			Tools []struct {
				Name      string `json:"name"`
				Execution *struct {
					TaskSupport string `json:"taskSupport"`
				} `json:"execution"`
			} `json:"tools"`
			Task *taskInfo `json:"task"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return
	}
	if m.Method == methodTaskStatus {
		var t taskInfo
		if json.Unmarshal(m.Params, &t) == nil && t.TaskID != "" {
			w.notify(t)
		}
		return
	}
	r := m.Result
	if r == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case r.ServerInfo != nil && r.Capabilities != nil:
		w.caps = r.Capabilities.Tasks
	case r.Task != nil && r.Task.TaskID != "" && w.created != nil:
		select {
		case w.created <- *r.Task:
		default:
		}
	case r.Tools != nil:
		if w.support == nil {
			w.support = map[string]string{}
		}
		for _, t := range r.Tools {
			if t.Execution != nil {
				w.support[t.Name] = t.Execution.TaskSupport
			}
		}
	}
}

// notify passes a status notification to the watcher of its task.
func (w *taskWatch) notify(t taskInfo) {
	w.mu.Lock()
	ch := w.watchers[t.TaskID]
	w.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case ch <- t:
	default: // a status is pending already: the next poll reads the latest
	}
}

// watch returns the channel of task id's status notifications and a stop.
func (w *taskWatch) watch(id string) (<-chan taskInfo, func()) {
	ch := make(chan taskInfo, 1)
	w.mu.Lock()
	if w.watchers == nil {
		w.watchers = map[string]chan taskInfo{}
	}
	w.watchers[id] = ch
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		if w.watchers[id] == ch {
			delete(w.watchers, id)
		}
		w.mu.Unlock()
	}
}

// resetTools forgets the task support of the tools listed before.
func (w *taskWatch) resetTools() {
	w.mu.Lock()
	w.support = nil
	w.mu.Unlock()
}

// toolCallTasks reports whether the server declared task-augmented tools/call.
func (w *taskWatch) toolCallTasks() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.caps
	return c != nil && c.Requests != nil && c.Requests.Tools != nil && c.Requests.Tools.Call != nil
}

// capability is the declared tasks capability as the wire shows it; nil
// when the server declared none.
func (w *taskWatch) capability() *wire.TaskCapability {
	w.mu.Lock()
	c := w.caps
	w.mu.Unlock()
	if c == nil {
		return nil
	}
	return &wire.TaskCapability{List: c.List != nil, Cancel: c.Cancel != nil, ToolCall: w.toolCallTasks()}
}

// supportOf returns tool name's execution.taskSupport ("" when not given).
func (w *taskWatch) supportOf(name string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.support[name]
}
