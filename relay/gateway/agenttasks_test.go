package gateway_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/taskfixture"
	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// taskAgent speaks to the gateway as an agent that runs calls as tasks, in
// its era's way: on 2025-11-25 on a session (the task parameter of
// tools/call, then tasks/get, tasks/result, tasks/cancel), on 2026-07-28
// per request with the tasks extension declared.
type taskAgent struct {
	t    *testing.T
	url  string
	key  string
	era  string
	sess string // the session of a 2025-11-25 agent
}

func (r *relay) taskAgent(t *testing.T, key, era string) *taskAgent {
	ta := &taskAgent{t: t, url: r.url + gateway.Path, key: key, era: era}
	if era != "2026-07-28" {
		ta.sess = r.connect(key, gateway.Path, era).cs.ID()
	}
	return ta
}

// send sends one request and returns its answer.
func (ta *taskAgent) send(method string, params map[string]any) message {
	ta.t.Helper()
	resp, tr := post(ta.t, rawRequest{url: ta.url, key: ta.key, era: ta.era, sess: ta.sess, method: method, params: params, id: 7,
		caps: map[string]any{"extensions": map[string]any{gateway.TasksExtension: map[string]any{}}}})
	for _, m := range tr.messages(ta.t) {
		if string(m.ID) == "7" {
			m.of = method
			checkSchema(ta.t, ta.era, m)
			return m
		}
	}
	ta.t.Fatalf("%s: %s with no answer: %s", method, resp.Status, tr.bodies[0])
	return message{}
}

// task is a task as the agent's era says it.
type task struct {
	TaskID        string          `json:"taskId"`
	Status        string          `json:"status"`
	StatusMessage string          `json:"statusMessage"`
	TTL           *int64          `json:"ttl"`
	TTLMs         *int64          `json:"ttlMs"`
	Result        json.RawMessage `json:"result"`
}

// taskOf reads the task of m: a result that is the task, or holds it.
func taskOf(t *testing.T, m message) task {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("an error, not a task: %s", m.raw)
	}
	raw, _ := json.Marshal(m.Result)
	if inner, ok := m.Result["task"]; ok {
		raw = inner
	}
	var tk task
	if err := json.Unmarshal(raw, &tk); err != nil || tk.TaskID == "" {
		t.Fatalf("no task in %s", m.raw)
	}
	return tk
}

// start calls tool as a task and returns the task.
func (ta *taskAgent) start(tool string, args map[string]any) task {
	ta.t.Helper()
	params := map[string]any{"name": tool, "arguments": args}
	if ta.sess != "" {
		params["task"] = map[string]any{"ttl": 60_000}
	}
	m := ta.send("tools/call", params)
	if ta.sess == "" && string(m.Result["resultType"]) != `"task"` {
		ta.t.Fatalf("a call that waits is answered without a task: %s", m.raw)
	}
	return taskOf(ta.t, m)
}

// get polls the task once.
func (ta *taskAgent) get(id string) task {
	ta.t.Helper()
	return taskOf(ta.t, ta.send("tasks/get", map[string]any{"taskId": id}))
}

// until polls task id as an agent does until ok says the task is as
// wanted.
func (ta *taskAgent) until(id, what string, ok func(task) bool) task {
	ta.t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		tk := ta.get(id)
		if ok(tk) {
			return tk
		}
		if time.Now().After(deadline) {
			ta.t.Fatalf("the task never was %s: %+v", what, tk)
		}
		time.Sleep(20 * time.Millisecond) // the agent's poll interval
	}
}

// An agent of either era runs a call that waits for a person as a task:
// it gets the task at once, the task says it waits for a person, the
// person answers in the dashboard, and the agent gets the call's result
// from the task.
func TestAnAgentRunsACallThatWaitsForAPersonAsATask(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			fx := taskfixture.Start(t, taskfixture.Config{Steps: 2, Step: 20 * time.Millisecond, Ask: true})
			r := newRelayWith(t, session.Config{}, gateway.Config{TaskAfter: 50 * time.Millisecond})
			id := r.add("alice", "tasks", fx.URL)
			r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
			d := r.dashboard("alice")
			ta := r.taskAgent(t, "k1", era)

			tk := ta.start(id+"__"+taskfixture.ToolResearch, map[string]any{"topic": "owls"})
			if tk.Status != "working" {
				t.Errorf("a new task is %q, want working", tk.Status)
			}
			ask := d.ask()
			if ask.Agent != "Claude" || ask.Tool != taskfixture.ToolResearch {
				t.Errorf("the task's question is labelled agent %q, tool %q", ask.Agent, ask.Tool)
			}
			ta.until(tk.TaskID, "waiting for a person", func(tk task) bool { return tk.StatusMessage == "waiting for a person in Switchboard" })
			d.answer(ask.ID, wire.ActionAccept, map[string]any{"interpretation": "birds"})

			var result json.RawMessage
			if era == "2026-07-28" {
				done := ta.until(tk.TaskID, "completed", func(tk task) bool { return tk.Status != "working" })
				if done.Status != "completed" || done.TTLMs == nil || done.TTL != nil {
					t.Fatalf("the ended task: %+v, want completed with its ttlMs", done)
				}
				result = done.Result
			} else {
				m := ta.send("tasks/result", map[string]any{"taskId": tk.TaskID})
				if m.Error != nil {
					t.Fatalf("tasks/result: %s", m.raw)
				}
				result, _ = json.Marshal(m.Result)
				if !strings.Contains(string(m.Result["_meta"]), tk.TaskID) {
					t.Errorf("the task's result does not name its task: %s", m.raw)
				}
				if done := ta.get(tk.TaskID); done.Status != "completed" || done.TTL == nil || done.TTLMs != nil {
					t.Errorf("the ended task: %+v, want completed with its ttl", done)
				}
				list := ta.send("tasks/list", nil)
				if !strings.Contains(string(list.Result["tasks"]), tk.TaskID) {
					t.Errorf("tasks/list does not list the task: %s", list.raw)
				}
			}
			if !strings.Contains(string(result), "owls (accept: birds)") {
				t.Errorf("the task's result is %s, want the report on owls", result)
			}
			if recs := r.recs.all(); len(recs) != 1 || !recs[0].Asked || recs[0].Agent != "Claude" {
				t.Errorf("the activity of the call: %+v, want one call of the agent that asked a person", recs)
			}
		})
	}
}

// Cancelling a task cancels its call at the server; another key cannot see
// or cancel the task.
func TestAnAgentCancelsItsTaskAndNoOtherKeySeesIt(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			up := startUpstream(t)
			r := newRelayWith(t, session.Config{}, gateway.Config{TaskAfter: 50 * time.Millisecond})
			id := r.add("alice", "notes", up.url)
			r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
			r.keys.put("k2", agentkeys.Grant{User: "alice", Agent: "Other", KeyID: "key2"})
			ta := r.taskAgent(t, "k1", era)
			other := r.taskAgent(t, "k2", era)

			tk := ta.start(id+"__slow", map[string]any{})
			<-up.started
			for _, method := range []string{"tasks/get", "tasks/cancel"} {
				if m := other.send(method, map[string]any{"taskId": tk.TaskID}); m.Error == nil {
					t.Errorf("another key's %s answered %s", method, m.raw)
				}
			}
			m := ta.send("tasks/cancel", map[string]any{"taskId": tk.TaskID})
			if m.Error != nil {
				t.Fatalf("tasks/cancel: %s", m.raw)
			}
			if era == "2025-11-25" && taskOf(t, m).Status != "cancelled" {
				t.Errorf("tasks/cancel answered %s, want the task cancelled", m.raw)
			}
			select {
			case <-up.cancelled:
			case <-time.After(waitFor):
				t.Fatal("the server's call was not cancelled with the task")
			}
			if got := ta.get(tk.TaskID); got.Status != "cancelled" {
				t.Errorf("the task after cancel: %+v", got)
			}
			if m := ta.send("tasks/get", map[string]any{"taskId": "no-such-task"}); m.Error == nil {
				t.Errorf("an unknown task answered %s", m.raw)
			}
		})
	}
}

// A 2026-07-28 call that ends soon is answered as it is, tasks declared or
// not; 2025-06-18 has no tasks; each era is told of tasks its own way.
func TestTasksAreOfferedAsEachEraSaysThem(t *testing.T) {
	up := startUpstream(t)
	r := newRelay(t, broker.Config{})
	id := r.add("alice", "notes", up.url)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})

	now := r.taskAgent(t, "k1", "2026-07-28")
	m := now.send("tools/call", map[string]any{"name": id + "__echo", "arguments": map[string]any{"a": 1}})
	if string(m.Result["resultType"]) != `"complete"` || !strings.Contains(string(m.Result["content"]), `\"a\":1`) {
		t.Errorf("a quick call of an agent that declared tasks: %s, want its result", m.raw)
	}
	discover := now.send("server/discover", nil)
	if !strings.Contains(string(discover.Result["capabilities"]), gateway.TasksExtension) {
		t.Errorf("discovery does not offer the tasks extension: %s", discover.raw)
	}

	for era, want := range map[string]bool{"2025-06-18": false, "2025-11-25": true} {
		a := r.connect("k1", gateway.Path, era)
		caps, _ := json.Marshal(a.cs.InitializeResult().Capabilities)
		var got struct {
			Extensions map[string]any `json:"extensions"`
		}
		tap := a.wire.received()
		json.Unmarshal(caps, &got)
		if _, ext := got.Extensions[gateway.TasksExtension]; ext {
			t.Errorf("%s: the tasks extension offered: %s", era, caps)
		}
		if has := strings.Contains(tap, `"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`); has != want {
			t.Errorf("%s: the legacy tasks capability offered %v, want %v: %s", era, has, want, tap)
		}
		if _, err := a.cs.ListTools(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(a.wire.received(), `"execution":{"taskSupport":"optional"}`); has != want {
			t.Errorf("%s: tools may run as tasks: %v, want %v", era, has, want)
		}
		if !want {
			ta := &taskAgent{t: t, url: r.url + gateway.Path, key: "k1", era: era, sess: a.cs.ID()}
			if m := ta.send("tasks/get", map[string]any{"taskId": "x"}); m.Error == nil || !strings.Contains(string(m.Error), "-32601") {
				t.Errorf("%s: tasks/get answered %s, want method not found", era, m.raw)
			}
		}
	}
}

// A key holds a bounded number of tasks: past it a new one is refused while
// all run, and takes the place of one that ended.
func TestAKeysTasksAreBounded(t *testing.T) {
	up := startUpstream(t)
	r := newRelay(t, broker.Config{})
	id := r.add("alice", "notes", up.url)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	ta := r.taskAgent(t, "k1", "2025-11-25")
	var first task
	for i := range gateway.MaxTasks {
		tk := ta.start(id+"__slow", map[string]any{})
		if i == 0 {
			first = tk
		}
	}
	over := ta.send("tools/call", map[string]any{"name": id + "__slow", "arguments": map[string]any{}, "task": map[string]any{}})
	if over.Error == nil || !strings.Contains(string(over.Error), "too many tasks") {
		t.Fatalf("a task past the bound: %s, want it refused", over.raw)
	}
	if m := ta.send("tasks/cancel", map[string]any{"taskId": first.TaskID}); m.Error != nil {
		t.Fatalf("tasks/cancel: %s", m.raw)
	}
	ta.start(id+"__slow", map[string]any{})
	if m := ta.send("tasks/get", map[string]any{"taskId": first.TaskID}); m.Error == nil {
		t.Errorf("the task that ended was kept past the bound: %s", m.raw)
	}
}
