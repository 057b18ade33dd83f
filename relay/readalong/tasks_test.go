package readalong

import "testing"

func TestTasksReadWhatTheGoSDKDrops(t *testing.T) {
	var w Tasks
	w.scan([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"s"},
		"capabilities":{"tools":{},"tasks":{"cancel":{},"requests":{"tools":{"call":{}}}}}}}`))
	if got := w.Capability(); got == nil || !got.ToolCall || !got.Cancel || got.List {
		t.Errorf("capability = %+v, want tool calls and cancel", got)
	}
	w.scan([]byte(`[{"jsonrpc":"2.0","id":2,"result":{"tools":[
		{"name":"a","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}},
		{"name":"b","inputSchema":{"type":"object"}}]}}]`))
	if w.Support("a") != "required" || w.Support("b") != "" {
		t.Errorf("support a=%q b=%q, want required and none", w.Support("a"), w.Support("b"))
	}
	notes, stop := w.Watch("t1")
	defer stop()
	w.scan([]byte(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"input_required","statusMessage":"which one?"}}`))
	w.scan([]byte(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t2","status":"completed"}}`))
	select {
	case n := <-notes:
		if n.Status != "input_required" || n.StatusMessage != "which one?" {
			t.Errorf("notification = %+v", n)
		}
	default:
		t.Fatal("the status notification of t1 did not reach its watcher")
	}
	select {
	case n := <-notes:
		t.Errorf("another task's notification reached t1's watcher: %+v", n)
	default:
	}
}

func TestTasksIgnoreACreatedTaskNobodyWaitsFor(t *testing.T) {
	var w Tasks
	w.scan([]byte(`{"jsonrpc":"2.0","id":3,"result":{"task":{"taskId":"x","status":"working"}}}`))
	created, done := w.Expect()
	defer done()
	w.scan([]byte(`{"jsonrpc":"2.0","id":4,"result":{"task":{"taskId":"y","status":"working"}}}`))
	if got := <-created; got.TaskID != "y" {
		t.Errorf("created = %+v, want y", got)
	}
}
