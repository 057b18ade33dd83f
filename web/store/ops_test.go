package store

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestOpIsSentWithAnIDAndAnsweredExactlyOnce(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	var got []Reply
	id := c.Do(wire.OpAddServer, wire.AddServerArgs{Name: "n", URL: "http://127.0.0.1:1/mcp"}, func(rep Reply) { got = append(got, rep) })
	id2 := c.Do(wire.OpRetryServer, wire.ServerArgs{Server: "s1"}, func(Reply) {})
	if id == id2 || id == "" {
		t.Fatalf("op ids %q and %q are not unique", id, id2)
	}
	f := s.frames()[1] // after the hello
	if f.Type != wire.TypeOp || f.ID != id || f.Op != wire.OpAddServer {
		t.Fatalf("op frame = %+v", f)
	}
	var args wire.AddServerArgs
	if err := json.Unmarshal(f.Data, &args); err != nil || args.Name != "n" {
		t.Fatalf("op args %s: %v", f.Data, err)
	}

	s.result(id, wire.AddServerResult{ID: "s3"})
	s.result(id, wire.AddServerResult{ID: "again"})
	if len(got) != 1 {
		t.Fatalf("done called %d times, want 1", len(got))
	}
	var res wire.AddServerResult
	if err := json.Unmarshal(got[0].Data, &res); err != nil || res.ID != "s3" || got[0].Err != nil {
		t.Errorf("reply = %+v (%v)", got[0], err)
	}
}

func TestOpErrorFrameCarriesTheRelaysError(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	var got Reply
	id := c.Do(wire.OpAddServer, wire.AddServerArgs{}, func(rep Reply) { got = rep })
	s.recv(wire.ErrorFrame(id, wire.NewError(wire.CodeInvalidURL, "scheme ftp is not allowed")))
	if got.Err == nil || got.Err.Code != wire.CodeInvalidURL || got.Err.Message != "scheme ftp is not allowed" {
		t.Errorf("reply = %+v", got)
	}
}

func TestOpsInFlightFailWhenTheSocketDrops(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	var errs []*wire.Error
	for range 2 {
		c.Do(wire.OpRetryServer, wire.ServerArgs{Server: "s1"}, func(rep Reply) { errs = append(errs, rep.Err) })
	}
	s.drop(CloseAbnormal)
	if len(errs) != 2 {
		t.Fatalf("%d ops answered, want 2", len(errs))
	}
	for _, e := range errs {
		if e == nil || e.Code != CodeConnectionLost || !strings.Contains(e.Message, "connection to the relay was lost") {
			t.Errorf("error = %+v, want connection lost", e)
		}
		// The op may have run: the words must not invite a blind retry.
		if e != nil && (!strings.Contains(e.Message, "may or may not have been done") || !strings.Contains(e.Message, "check before trying again")) {
			t.Errorf("error %q does not say the op may have run", e.Message)
		}
	}
}

// A socket the relay closes saying it restarts fails its ops saying so.
func TestOpsInFlightSayTheRelayRestartedWhenItSaysSo(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	var got Reply
	c.Do(wire.OpRetryServer, wire.ServerArgs{Server: "s1"}, func(rep Reply) { got = rep })
	s.drop(wire.CloseShuttingDown)
	if e := got.Err; e == nil || e.Code != CodeConnectionLost || !strings.Contains(e.Message, "relay restarted this connection") ||
		!strings.Contains(e.Message, "may or may not have been done") {
		t.Errorf("error = %+v, want one saying the relay restarted, and that the op may have run", e)
	}
}

func TestOpWhileOfflineFailsAtOnce(t *testing.T) {
	r, c := newRelay(t)
	c.Start()
	var got Reply
	c.Do(wire.OpRetryServer, wire.ServerArgs{Server: "s1"}, func(rep Reply) { got = rep })
	if got.Err == nil || got.Err.Code != CodeOffline {
		t.Errorf("reply = %+v, want offline error", got)
	}
	if n := len(r.last().sent); n != 0 {
		t.Errorf("%d frames sent on a socket that never opened", n)
	}
}

func TestToolCallShowsProgressThenItsText(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	id := c.CallTool("s1", "echo", json.RawMessage(`{"text":"hi"}`))
	f := s.lastFrame()
	var args wire.CallToolArgs
	if err := json.Unmarshal(f.Data, &args); err != nil || f.ID != id || f.Op != wire.OpCallTool ||
		args.Server != "s1" || args.Name != "echo" || string(args.Arguments) != `{"text":"hi"}` {
		t.Fatalf("tool.call frame = %+v args %+v", f, args)
	}
	calls := c.View().CallsTo("s1", wire.CallKindTool)
	if len(calls) != 1 || calls[0].Status != CallPending || calls[0].Name != "echo" {
		t.Fatalf("calls = %+v", calls)
	}

	p, _ := wire.NewFrame(wire.TypeProgress, wire.Progress{Progress: 1, Total: 4, Message: "warming up"})
	p.ID = id
	s.recv(p)
	call := c.View().Calls[0]
	if call.Progress == nil || call.Progress.Message != "warming up" || call.Progress.Total != 4 {
		t.Fatalf("progress = %+v", call.Progress)
	}

	s.result(id, wire.CallToolResult{Content: []wire.Content{
		{Type: wire.ContentText, Text: "hello"},
		{Type: wire.ContentImage, MIMEType: "image/png", Data: "AAAA"},
		{Type: wire.ContentText, Text: "world"},
	}})
	call = c.View().Calls[0]
	if call.Status != CallOK || call.Text != "hello\nworld" || call.Progress != nil {
		t.Fatalf("call = %+v", call)
	}
	if !strings.Contains(call.JSON, "\n  \"content\": [") || !strings.Contains(call.JSON, `"mimeType": "image/png"`) {
		t.Errorf("JSON is not the whole result indented:\n%s", call.JSON)
	}
}

func TestToolResultMarkedIsErrorShowsAsAnError(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	id := c.CallTool("s1", "echo", json.RawMessage(`{}`))
	s.result(id, wire.CallToolResult{IsError: true, Content: []wire.Content{{Type: wire.ContentText, Text: "disk full"}}})
	call := c.View().Calls[0]
	if call.Status != CallError || call.Error != "disk full" || call.Code != wire.CodeToolError {
		t.Errorf("call = %+v", call)
	}
}

func TestSeveralCallsInFlightEndIndependently(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	a := c.CallTool("s1", "echo", json.RawMessage(`{}`))
	b := c.CallTool("s1", "add", json.RawMessage(`{}`))
	s.recv(wire.ErrorFrame(b, wire.NewError(wire.CodeUpstream, "boom")))
	calls := c.View().Calls
	if calls[0].ID != b || calls[0].Status != CallError || calls[1].ID != a || calls[1].Status != CallPending {
		t.Fatalf("calls = %+v", calls)
	}
	if calls[0].Error != "Boom." { // the relay's words as a sentence, without a prefix
		t.Errorf("error text = %q", calls[0].Error)
	}
	s.drop(CloseAbnormal)
	if got := c.View().Calls[1]; got.Status != CallError || got.Code != CodeConnectionLost {
		t.Errorf("pending call after drop = %+v", got)
	}
}

func TestCancelSendsOpCancelAndTheCallEndsCancelled(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	id := c.CallTool("s1", "slow", json.RawMessage(`{}`))
	c.Cancel(id)
	c.Cancel(id) // a second click sends nothing more
	fs := s.frames()
	cancels := 0
	for _, f := range fs {
		if f.Op == wire.OpCancel {
			cancels++
			var args wire.CancelArgs
			if err := json.Unmarshal(f.Data, &args); err != nil || args.ID != id {
				t.Errorf("cancel args %s", f.Data)
			}
		}
	}
	if cancels != 1 {
		t.Fatalf("%d cancel ops sent, want 1", cancels)
	}
	if !c.View().Calls[0].Cancel {
		t.Error("call not marked as cancelling")
	}
	s.recv(wire.ErrorFrame(id, wire.NewError(wire.CodeCancelled, "cancelled")))
	if call := c.View().Calls[0]; call.Status != CallError || call.Error != "Cancelled." {
		t.Errorf("call = %+v", call)
	}
}

func TestCallsToKeepsOneServersCallsOfOneKind(t *testing.T) {
	v := View{Calls: []Call{
		{ID: "op-4", Server: "s1", Kind: wire.CallKindTool},
		{ID: "op-3", Server: "s2", Kind: wire.CallKindTool},
		{ID: "op-2", Server: "s1", Kind: wire.CallKindPrompt},
		{ID: "op-1", Server: "s1", Kind: wire.CallKindTool},
	}}
	var ids []string
	for _, c := range v.CallsTo("s1", wire.CallKindTool) {
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, ",") != "op-4,op-1" {
		t.Errorf("tool calls to s1 = %v, want [op-4 op-1], newest first", ids)
	}
}

func TestRefusedCancelLetsTheCallBeCancelledAgain(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	id := c.CallTool("s1", "slow", json.RawMessage(`{}`))
	c.Cancel(id)
	s.recv(wire.ErrorFrame(s.lastFrame().ID, wire.NewError(wire.CodeNotFound, "no such call")))
	call := c.View().Calls[0]
	if call.Status != CallPending || call.Cancel || call.CancelErr == nil || call.CancelErr.Message != "no such call" {
		t.Fatalf("after a refused cancel the call is %+v, want pending, not cancelling, with the refusal", call)
	}
	c.Cancel(id)
	if f := s.lastFrame(); f.Op != wire.OpCancel {
		t.Fatalf("a second cancel sent %+v, want another %s", f, wire.OpCancel)
	}
	if call := c.View().Calls[0]; !call.Cancel || call.CancelErr != nil {
		t.Errorf("cancelling again: %+v, want cancelling without the old refusal", call)
	}
}

func TestResourceReadAndPromptGetShowText(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	rid := c.ReadResource("s1", "file:///a.txt")
	pid := c.GetPrompt("s1", "greet", map[string]string{"name": "Ada"})
	s.result(rid, wire.ReadResourceResult{Contents: []wire.ResourceContents{
		{URI: "file:///a.txt", Text: "alpha"},
		{URI: "file:///b.bin", MIMEType: "application/octet-stream", Blob: "AAAA"},
	}})
	s.result(pid, wire.GetPromptResult{Description: "A greeting", Messages: []wire.PromptMessage{
		{Role: wire.RoleUser, Content: wire.Content{Type: wire.ContentText, Text: "Hello Ada"}},
	}})
	res := c.View().Calls[1:]
	if len(res) != 1 || res[0].Kind != wire.CallKindResource || res[0].Text != "alpha\n[binary content, application/octet-stream, 3 bytes]" {
		t.Errorf("resource call = %+v", res)
	}
	pr := c.View().Calls[:1]
	if len(pr) != 1 || pr[0].Kind != wire.CallKindPrompt || pr[0].Text != "A greeting\n\nuser: Hello Ada" || pr[0].Name != "greet" {
		t.Errorf("prompt call = %+v", pr)
	}
	var args wire.GetPromptArgs
	for _, f := range s.frames() {
		if f.Op == wire.OpGetPrompt {
			_ = json.Unmarshal(f.Data, &args)
		}
	}
	if args.Arguments["name"] != "Ada" {
		t.Errorf("prompt args = %+v", args)
	}
}

func TestCallListKeepsPendingCallsWhenTrimmed(t *testing.T) {
	var calls []Call
	calls = pushCall(calls, Call{ID: "first", Status: CallPending})
	for range maxCalls + 10 {
		calls = pushCall(calls, Call{ID: "done", Status: CallOK})
	}
	if len(calls) != maxCalls {
		t.Errorf("%d calls kept, want %d", len(calls), maxCalls)
	}
	if calls[len(calls)-1].ID != "first" {
		t.Error("the oldest pending call was dropped")
	}
}

func TestClipCutsLongTextOnACharacterBoundary(t *testing.T) {
	s := strings.Repeat("é", maxShown) // two bytes each
	got := clip(s)
	if !strings.HasPrefix(got, strings.Repeat("é", maxShown/2)) || !strings.Contains(got, "more bytes not shown") {
		t.Errorf("clip kept %d bytes: %q…", len(got), got[:20])
	}
	if clip("short") != "short" {
		t.Error("short text was changed")
	}
}

func TestAnEarlierViewKeepsItsCallsWhenOneEnds(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	id := c.CallTool("s1", "echo", json.RawMessage(`{}`))
	c.CallTool("s2", "other", json.RawMessage(`{}`))
	before := c.View()
	s.result(id, wire.CallToolResult{Content: []wire.Content{{Type: wire.ContentText, Text: "done"}}})
	if got := before.Calls[1].Status; got != CallPending {
		t.Errorf("a view taken before the answer shows %q, want pending", got)
	}
	if got := c.View().CallsTo("s1", wire.CallKindTool); len(got) != 1 || got[0].Status != CallOK || got[0].Text != "done" {
		t.Errorf("calls to s1 = %+v", got)
	}
}
