package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Tasks on the wire: the shapes of each era, the tasks/ methods, the
// capabilities that offer them, and the legacy task parameter (tasks.go).

// legacyTask is a task as 2025-11-25 says it.
type legacyTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           int64  `json:"ttl"`
	PollInterval  int64  `json:"pollInterval"`
}

// detailedTask is a task as the extension of 2026-07-28 says it, with its
// result or error once it ended.
type detailedTask struct {
	ResultType     string         `json:"resultType"`
	TaskID         string         `json:"taskId"`
	Status         string         `json:"status"`
	StatusMessage  string         `json:"statusMessage,omitempty"`
	CreatedAt      string         `json:"createdAt"`
	LastUpdatedAt  string         `json:"lastUpdatedAt"`
	TTLMs          int64          `json:"ttlMs"`
	PollIntervalMs int64          `json:"pollIntervalMs"`
	Result         mcp.Result     `json:"result,omitempty"`
	Error          *jsonrpc.Error `json:"error,omitempty"`
}

func (t *agentTask) legacy() legacyTask {
	t.mu.Lock()
	defer t.mu.Unlock()
	return legacyTask{
		TaskID: t.id, Status: t.status, StatusMessage: t.message,
		CreatedAt: t.created.Format(time.RFC3339Nano), LastUpdatedAt: t.updated.Format(time.RFC3339Nano),
		TTL: t.ttl.Milliseconds(), PollInterval: taskPollInterval.Milliseconds(),
	}
}

// detailed is the task as 2026-07-28 says it, resultType "task" when it is
// the answer to the call that made it, else "complete".
func (t *agentTask) detailed(resultType string) detailedTask {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := detailedTask{
		ResultType: resultType, TaskID: t.id, Status: t.status, StatusMessage: t.message,
		CreatedAt: t.created.Format(time.RFC3339Nano), LastUpdatedAt: t.updated.Format(time.RFC3339Nano),
		TTLMs: t.ttl.Milliseconds(), PollIntervalMs: taskPollInterval.Milliseconds(),
	}
	switch t.status {
	case taskCompleted:
		d.Result = t.result
	case taskFailed:
		d.Error = t.err
	}
	return d
}

// taskResult is a result made of body's JSON object, with the _meta the
// go-sdk sets on it.
type taskResult struct {
	mcp.ResultBase
	body any
}

func (r *taskResult) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.body)
	if err != nil || len(r.Meta) == 0 {
		return b, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	editObject(obj, "_meta", func(meta map[string]json.RawMessage) {
		for k, v := range r.Meta {
			if _, ok := meta[k]; !ok {
				meta[k], _ = json.Marshal(v)
			}
		}
	})
	return json.Marshal(obj)
}

// createdLegacy is the CreateTaskResult of 2025-11-25.
func createdLegacy(t *agentTask) mcp.Result {
	return &taskResult{body: struct {
		Task legacyTask `json:"task"`
	}{t.legacy()}}
}

// Requests.

// taskIDParams are the params of the tasks/ methods that name a task.
type taskIDParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// taskListParams are the params of tasks/list.
type taskListParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// legacyTaskParam is the task parameter of a legacy call.
type legacyTaskParam struct {
	TTL *int64 `json:"ttl,omitempty"`
}

// addTaskMethods lets the view's agents use its tasks.
func (v *view) addTaskMethods() {
	// None of these names is a method the go-sdk knows: adding cannot fail.
	_ = mcp.AddReceivingCustomMethod(v.srv, "tasks/get", func(ctx context.Context, ss *mcp.ServerSession, p *taskIDParams) (*taskResult, error) {
		t, err := v.task(ss, p, true)
		if err != nil {
			return nil, err
		}
		if newEra(eraOf(ss)) {
			return &taskResult{body: t.detailed("complete")}, nil
		}
		return &taskResult{body: t.legacy()}, nil
	})
	_ = mcp.AddReceivingCustomMethod(v.srv, "tasks/cancel", func(ctx context.Context, ss *mcp.ServerSession, p *taskIDParams) (*taskResult, error) {
		t, err := v.task(ss, p, true)
		if err != nil {
			return nil, err
		}
		cancelled := t.cancelWith("the agent cancelled the task")
		if newEra(eraOf(ss)) {
			return &taskResult{body: map[string]string{"resultType": "complete"}}, nil
		}
		if !cancelled {
			return nil, errTaskEnded
		}
		return &taskResult{body: t.legacy()}, nil
	})
	_ = mcp.AddReceivingCustomMethod(v.srv, "tasks/update", func(ctx context.Context, ss *mcp.ServerSession, p *taskIDParams) (*taskResult, error) {
		if !newEra(eraOf(ss)) {
			return nil, errTaskForbids
		}
		// The gateway asks agents nothing during a task (its questions go
		// to the person): every response answers no outstanding request.
		if _, err := v.task(ss, p, true); err != nil {
			return nil, err
		}
		return &taskResult{body: map[string]string{"resultType": "complete"}}, nil
	})
	_ = mcp.AddReceivingCustomMethod(v.srv, "tasks/result", func(ctx context.Context, ss *mcp.ServerSession, p *taskIDParams) (*taskResult, error) {
		t, err := v.task(ss, p, false)
		if err != nil {
			return nil, err
		}
		select {
		case <-t.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		switch t.status {
		case taskCancelled:
			return nil, errTaskCanceled
		case taskFailed:
			return nil, t.err
		}
		return &taskResult{body: withRelatedTask(t.result, t.id)}, nil
	})
	_ = mcp.AddReceivingCustomMethod(v.srv, "tasks/list", func(ctx context.Context, ss *mcp.ServerSession, p *taskListParams) (*taskResult, error) {
		if eraOf(ss) != legacyTasksEra {
			return nil, errTaskForbids
		}
		all := v.tasks.list()
		start := 0
		if p.Cursor != "" {
			start = slices.IndexFunc(all, func(t *agentTask) bool { return t.id == p.Cursor })
			if start < 0 {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown cursor"}
			}
		}
		page := all[start:min(len(all), start+taskListPage)]
		out := struct {
			Tasks      []legacyTask `json:"tasks"`
			NextCursor string       `json:"nextCursor,omitempty"`
		}{Tasks: make([]legacyTask, 0, len(page))}
		for _, t := range page {
			out.Tasks = append(out.Tasks, t.legacy())
		}
		if end := start + len(page); end < len(all) {
			out.NextCursor = all[end].id
		}
		return &taskResult{body: out}, nil
	})
}

// task returns the view's task p names, refusing an era without tasks
// (anyEra: 2026-07-28 too, else 2025-11-25 alone).
func (v *view) task(ss *mcp.ServerSession, p *taskIDParams, anyEra bool) (*agentTask, error) {
	era := eraOf(ss)
	if era != legacyTasksEra && !(anyEra && newEra(era)) {
		return nil, errTaskForbids
	}
	if p == nil || p.TaskID == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "taskId is required"}
	}
	t, ok := v.tasks.get(p.TaskID)
	if !ok {
		return nil, errNoTask
	}
	return t, nil
}

// eraOf is the protocol version of session ss.
func eraOf(ss *mcp.ServerSession) string {
	if ss == nil {
		return ""
	}
	if init := ss.InitializeParams(); init != nil {
		return init.ProtocolVersion
	}
	return ""
}

// withRelatedTask is res's JSON with _meta naming task id.
func withRelatedTask(res mcp.Result, id string) json.RawMessage {
	b, err := json.Marshal(res)
	if err != nil {
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) != nil || obj == nil {
		return b
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := obj["_meta"]; ok {
		json.Unmarshal(raw, &meta)
	}
	meta[relatedTaskKey], _ = json.Marshal(map[string]string{"taskId": id})
	obj["_meta"], _ = json.Marshal(meta)
	out, _ := json.Marshal(obj)
	return out
}

// Capabilities by era.

// legacyTasksCapability is how 2025-11-25 says the gateway's tasks.
var legacyTasksCapability = json.RawMessage(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)

// optionalTask is the execution of every tool a 2025-11-25 agent lists:
// any tool may run as a task.
var optionalTask = json.RawMessage(`{"taskSupport":"optional"}`)

// withEraTasks is the result res of method as a session of era gets it,
// as to tasks: the tasks extension is of 2026-07-28; a 2025-11-25 session
// gets the legacy tasks capability and each tool's execution instead.
func withEraTasks(method, era string, res mcp.Result) mcp.Result {
	switch {
	case method == "initialize" && !newEra(era):
		return editedResult{res, func(obj map[string]json.RawMessage) {
			editObject(obj, "capabilities", func(caps map[string]json.RawMessage) {
				editObject(caps, "extensions", func(ext map[string]json.RawMessage) { delete(ext, TasksExtension) })
				if era == legacyTasksEra {
					caps["tasks"] = legacyTasksCapability
				}
			})
		}}
	case method == "tools/list" && era == legacyTasksEra:
		return editedResult{res, func(obj map[string]json.RawMessage) {
			var tools []map[string]json.RawMessage
			if json.Unmarshal(obj["tools"], &tools) != nil {
				return
			}
			for _, t := range tools {
				t["execution"] = optionalTask
			}
			obj["tools"], _ = json.Marshal(tools)
		}}
	}
	return res
}

// editedResult is a result whose JSON object edit changes.
type editedResult struct {
	mcp.Result
	edit func(map[string]json.RawMessage)
}

func (r editedResult) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.Result)
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) != nil || obj == nil {
		return b, nil
	}
	r.edit(obj)
	return json.Marshal(obj)
}

// editObject edits the object obj[key], dropping it when it ends empty.
func editObject(obj map[string]json.RawMessage, key string, edit func(map[string]json.RawMessage)) {
	inner := map[string]json.RawMessage{}
	if raw, ok := obj[key]; ok && json.Unmarshal(raw, &inner) != nil {
		return
	}
	edit(inner)
	if len(inner) == 0 {
		delete(obj, key)
		return
	}
	obj[key], _ = json.Marshal(inner)
}

// liftTaskParam moves the task parameter of a 2025-11-25 agent's tools/call
// into the call's _meta (taskParamKey), where the go-sdk keeps it: it
// drops the parameters it does not know. Any other request is left as it
// is, and so is a body over the transport's limit (which refuses it).
func liftTaskParam(r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get(protocolHeader) != legacyTasksEra || r.Body == nil {
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, wire.MaxInboundFrame+1))
	rest := r.Body
	restore := func(b []byte) {
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(b), rest), rest}
		r.ContentLength = -1
	}
	if err != nil || len(body) > wire.MaxInboundFrame || !bytes.Contains(body, []byte(`"task"`)) {
		restore(body)
		return
	}
	var msg map[string]json.RawMessage
	var method string
	var params map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil || json.Unmarshal(msg["method"], &method) != nil || method != "tools/call" ||
		json.Unmarshal(msg["params"], &params) != nil || params["task"] == nil {
		restore(body)
		return
	}
	task := params["task"]
	delete(params, "task")
	editObject(params, "_meta", func(meta map[string]json.RawMessage) { meta[taskParamKey] = task })
	msg["params"], _ = json.Marshal(params)
	lifted, err := json.Marshal(msg)
	if err != nil {
		restore(body)
		return
	}
	restore(lifted)
}
