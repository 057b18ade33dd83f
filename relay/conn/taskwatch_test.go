package conn

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestTaskWatchReadsWhatTheGoSDKDrops(t *testing.T) {
	var w taskWatch
	w.scan([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"s"},
		"capabilities":{"tools":{},"tasks":{"cancel":{},"requests":{"tools":{"call":{}}}}}}}`))
	if got := w.capability(); got == nil || !got.ToolCall || !got.Cancel || got.List {
		t.Errorf("capability = %+v, want tool calls and cancel", got)
	}
	w.scan([]byte(`[{"jsonrpc":"2.0","id":2,"result":{"tools":[
		{"name":"a","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}},
		{"name":"b","inputSchema":{"type":"object"}}]}}]`))
	if w.supportOf("a") != wire.TaskSupportRequired || w.supportOf("b") != "" {
		t.Errorf("support a=%q b=%q, want required and none", w.supportOf("a"), w.supportOf("b"))
	}
	notes, stop := w.watch("t1")
	defer stop()
	w.scan([]byte(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"input_required","statusMessage":"which one?"}}`))
	w.scan([]byte(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t2","status":"completed"}}`))
	select {
	case n := <-notes:
		if n.Status != wire.TaskInputRequired || n.StatusMessage != "which one?" {
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

func TestTaskWatchIgnoresACreatedTaskNobodyWaitsFor(t *testing.T) {
	var w taskWatch
	w.scan([]byte(`{"jsonrpc":"2.0","id":3,"result":{"task":{"taskId":"x","status":"working"}}}`))
	ch := make(chan taskInfo, 1)
	w.mu.Lock()
	w.created = ch
	w.mu.Unlock()
	w.scan([]byte(`{"jsonrpc":"2.0","id":4,"result":{"task":{"taskId":"y","status":"working"}}}`))
	if got := <-ch; got.TaskID != "y" {
		t.Errorf("created = %+v, want y", got)
	}
}
