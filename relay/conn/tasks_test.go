package conn

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/taskfixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// statusLog records the task statuses a call reports.
type statusLog struct {
	mu      sync.Mutex
	created []Task
	seen    []Task
}

func (l *statusLog) onCreated(t Task) {
	l.mu.Lock()
	l.created = append(l.created, t)
	l.mu.Unlock()
}
func (l *statusLog) onStatus(t Task) { l.mu.Lock(); l.seen = append(l.seen, t); l.mu.Unlock() }
func (l *statusLog) messages() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, t := range l.seen {
		out = append(out, string(t.Status)+":"+t.StatusMessage)
	}
	return out
}

func startTaskFixture(t *testing.T, cfg taskfixture.Config) (*taskfixture.Server, *Conn, State) {
	t.Helper()
	f := taskfixture.Start(t, cfg)
	c, r := start(t, testConfig(f.URL))
	return f, c, r.AwaitState(wire.StateReady)
}

func TestTaskSupportAndCapabilityAreKept(t *testing.T) {
	_, _, st := startTaskFixture(t, taskfixture.Config{})
	l := st.Lists
	if l.TaskSupport[taskfixture.ToolResearch] != wire.TaskSupportRequired || l.Uncallable[taskfixture.ToolResearch] != "" {
		t.Errorf("research tool: support %q, uncallable %q; want required and callable", l.TaskSupport[taskfixture.ToolResearch], l.Uncallable[taskfixture.ToolResearch])
	}
	if got := l.TaskSupport[taskfixture.ToolQuick]; got != wire.TaskSupportOptional {
		t.Errorf("quick taskSupport = %q, want optional", got)
	}
	if st.Tasks == nil || !st.Tasks.ToolCall || !st.Tasks.Cancel {
		t.Errorf("tasks capability = %+v, want toolCall and cancel", st.Tasks)
	}
	if st.Init.Capabilities.Tools == nil {
		t.Errorf("capabilities = %+v, want tools", st.Init.Capabilities)
	}
}

func TestRequiredTaskToolWithoutTaskCapabilityIsUncallable(t *testing.T) {
	_, c, st := startTaskFixture(t, taskfixture.Config{NoTaskCapability: true})
	if got := st.Lists.Uncallable[taskfixture.ToolResearch]; got == "" {
		t.Fatalf("research is callable without a tasks capability")
	}
	if _, err := c.TaskMode(taskfixture.ToolResearch); errCode(t, err) != BadRequest {
		t.Errorf("TaskMode error = %v, want bad request", err)
	}
}

func TestRequiredTaskToolIsNotCalledPlainly(t *testing.T) {
	_, c, _ := startTaskFixture(t, taskfixture.Config{})
	_, err := c.CallTool(context.Background(), toolCall(taskfixture.ToolResearch, json.RawMessage(`{"topic":"x"}`)), nil)
	if errCode(t, err) != BadRequest {
		t.Fatalf("plain call of a required-task tool: err = %v, want bad request", err)
	}
}

func TestTaskRunsToItsResult(t *testing.T) {
	_, c, _ := startTaskFixture(t, taskfixture.Config{Steps: 3, Step: 150 * time.Millisecond})
	task, err := c.TaskMode(taskfixture.ToolResearch)
	if err != nil || !task {
		t.Fatalf("TaskMode = %v, %v; want a task", task, err)
	}
	var log statusLog
	var mu sync.Mutex
	var progress []*mcp.ProgressNotificationParams
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := c.CallToolTask(ctx, toolCall(taskfixture.ToolResearch, json.RawMessage(`{"topic":"owls"}`)), func(p *mcp.ProgressNotificationParams) { mu.Lock(); progress = append(progress, p); mu.Unlock() }, log.onCreated, log.onStatus)
	if err != nil {
		t.Fatalf("CallToolTask: %v", err)
	}
	if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "report on owls" {
		t.Errorf("result = %+v, want the report on owls", res)
	}
	if len(log.created) != 1 || log.created[0].ID == "" {
		t.Errorf("created = %+v, want one task with an id", log.created)
	}
	mu.Lock()
	if len(progress) == 0 || progress[len(progress)-1].Total != 3 {
		t.Errorf("progress = %+v, want the steps out of 3", progress)
	}
	mu.Unlock()
	msgs := log.messages()
	if !slices.Contains(msgs, "working:step 2 of 3") {
		t.Errorf("statuses seen = %q, want the middle step among them", msgs)
	}
}

func TestTaskCancelEndsIt(t *testing.T) {
	f, c, _ := startTaskFixture(t, taskfixture.Config{Steps: 50, Step: 100 * time.Millisecond})
	var log statusLog
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.CallToolTask(ctx, toolCall(taskfixture.ToolResearch, json.RawMessage(`{"topic":"bees"}`)), nil, log.onCreated, log.onStatus)
		done <- err
	}()
	id := <-f.Created()
	if err := c.CancelTask(ctx, id); err != nil {
		t.Fatalf("CancelTask: %v", err)
	}
	if got := f.Status(id); got != string(wire.TaskCancelled) {
		t.Errorf("fixture status = %q, want cancelled", got)
	}
	if err := <-done; err == nil {
		t.Errorf("a cancelled task returned a result")
	}
}

func TestWatchTaskResumesByID(t *testing.T) {
	f, c, _ := startTaskFixture(t, taskfixture.Config{Steps: 2, Step: 100 * time.Millisecond, Hold: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first, stop := context.WithCancel(ctx)
	var log statusLog
	done := make(chan error, 1)
	go func() {
		_, err := c.CallToolTask(first, toolCall(taskfixture.ToolResearch, json.RawMessage(`{"topic":"moss"}`)), nil, log.onCreated, log.onStatus)
		done <- err
	}()
	id := <-f.Created()
	stop() // the caller went away (a restart): the task runs on
	<-done
	f.Release()
	var again statusLog
	res, err := c.WatchTask(ctx, id, again.onStatus)
	if err != nil {
		t.Fatalf("WatchTask: %v", err)
	}
	if res.Content[0].(*mcp.TextContent).Text != "report on moss" {
		t.Errorf("result = %+v, want the report on moss", res)
	}
}

func TestPingMeasuresRoundTrip(t *testing.T) {
	_, c, _ := startTaskFixture(t, taskfixture.Config{})
	d, err := c.Ping(context.Background())
	if err != nil || d <= 0 {
		t.Fatalf("Ping = %v, %v; want a positive round trip", d, err)
	}
}

func TestTaskCallThatTheServerRunsPlainlyReturnsItsResult(t *testing.T) {
	_, c, _ := startTaskFixture(t, taskfixture.Config{IgnoreTasks: true})
	var log statusLog
	res, err := c.CallToolTask(context.Background(), toolCall(taskfixture.ToolQuick, json.RawMessage(`{"topic":"ivy"}`)), nil, log.onCreated, log.onStatus)
	if err != nil {
		t.Fatalf("CallToolTask: %v", err)
	}
	if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "quick ivy" || len(log.created) != 0 {
		t.Errorf("result = %+v, created = %+v; want the plain result and no task", res, log.created)
	}
}
