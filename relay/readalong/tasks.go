package readalong

import (
	"bytes"
	"encoding/json"
	"maps"
	"sync"
)

// Tasks (MCP 2025-11-25, experimental) are not modelled by the go-sdk: it
// drops a server's tasks capability, a tool's execution.taskSupport and the
// task of a CreateTaskResult when it decodes them. So [Tasks] reads along
// the messages the server sends and keeps what tasks need: the tasks
// capability of the initialize result, each listed tool's task support,
// the task a task-augmented tools/call created, and
// notifications/tasks/status. Only one task creation runs at a time per
// connection ([Tasks.Expect]), so the one CreateTaskResult seen while it
// runs is its answer.

// methodTaskStatus is the notification of a task's new status.
const methodTaskStatus = "notifications/tasks/status"

// Task is a task as the server reports it.
type Task struct {
	TaskID        string   `json:"taskId"`
	Status        string   `json:"status"`
	StatusMessage string   `json:"statusMessage,omitempty"`
	PollInterval  *float64 `json:"pollInterval,omitempty"` // milliseconds
}

// TaskCapability is the tasks capability a server declared.
type TaskCapability struct {
	List     bool // tasks/list
	Cancel   bool // tasks/cancel
	ToolCall bool // task-augmented tools/call
}

// serverTasks is the tasks capability as the server sends it.
type serverTasks struct {
	List     *struct{} `json:"list"`
	Cancel   *struct{} `json:"cancel"`
	Requests *struct {
		Tools *struct {
			Call *struct{} `json:"call"`
		} `json:"tools"`
	} `json:"requests"`
}

// Tasks is the read-along state of one connection's tasks. The zero value
// is ready; it is safe for concurrent use.
type Tasks struct {
	create sync.Mutex // held while a task-augmented tools/call runs

	mu       sync.Mutex
	caps     *serverTasks         // from the last initialize result
	support  map[string]string    // tool name → execution.taskSupport, from tools/list
	created  chan Task            // the pending creation's answer, buffered 1; nil when none
	watchers map[string]chan Task // task id → status notifications, buffered 1
}

// scan looks at one message or batch the server sent.
func (w *Tasks) scan(msg []byte) {
	if !bytes.Contains(msg, []byte(`"serverInfo"`)) && !bytes.Contains(msg, []byte(`"tools"`)) &&
		!bytes.Contains(msg, []byte(`"taskId"`)) {
		return
	}
	eachMessage(msg, w.scanMessage)
}

func (w *Tasks) scanMessage(msg []byte) {
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
			Task *Task `json:"task"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return
	}
	if m.Method == methodTaskStatus {
		var t Task
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
func (w *Tasks) notify(t Task) {
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

// Watch returns the channel of task id's status notifications, and the
// function that stops them.
func (w *Tasks) Watch(id string) (<-chan Task, func()) {
	ch := make(chan Task, 1)
	w.mu.Lock()
	if w.watchers == nil {
		w.watchers = map[string]chan Task{}
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

// Expect waits until no other task creation runs, and returns the channel
// of the task the next CreateTaskResult read names and the function that
// ends the creation. Between the two, the caller sends its task-augmented
// tools/call.
func (w *Tasks) Expect() (<-chan Task, func()) {
	w.create.Lock()
	ch := make(chan Task, 1)
	w.mu.Lock()
	w.created = ch
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		w.created = nil
		w.mu.Unlock()
		w.create.Unlock()
	}
}

// ResetTools forgets the task support of the tools listed before.
func (w *Tasks) ResetTools() {
	w.mu.Lock()
	w.support = nil
	w.mu.Unlock()
}

// ToolCalls reports whether the server declared task-augmented tools/call.
func (w *Tasks) ToolCalls() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.toolCallsLocked()
}

func (w *Tasks) toolCallsLocked() bool {
	c := w.caps
	return c != nil && c.Requests != nil && c.Requests.Tools != nil && c.Requests.Tools.Call != nil
}

// Capability is the tasks capability the server declared last; nil when it
// declared none.
func (w *Tasks) Capability() *TaskCapability {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.caps == nil {
		return nil
	}
	return &TaskCapability{List: w.caps.List != nil, Cancel: w.caps.Cancel != nil, ToolCall: w.toolCallsLocked()}
}

// Support returns tool name's execution.taskSupport as listed last ("" when
// not given).
func (w *Tasks) Support(name string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.support[name]
}

// Supports returns the execution.taskSupport of every tool listed last
// that gave one, by name: a copy.
func (w *Tasks) Supports() map[string]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.support)
}
