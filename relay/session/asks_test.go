package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// askResult is what an asker's Elicit or Sample returned.
type askResult struct {
	ans conn.Answer
	res *mcp.CreateMessageWithToolsResult
	err error
}

// elicitAsync asks p, a server's request, through asker in the
// background, as a connection does.
func elicitAsync(ctx context.Context, asker conn.Asker, p *mcp.ElicitParams) <-chan askResult {
	return elicitAsyncFrom(ctx, asker, p, conn.FromRequest)
}

// elicitAsyncFrom is elicitAsync of an elicitation from elsewhere.
func elicitAsyncFrom(ctx context.Context, asker conn.Asker, p *mcp.ElicitParams, from conn.Origin) <-chan askResult {
	out := make(chan askResult, 1)
	go func() {
		ans, err := asker.Elicit(ctx, p, from)
		out <- askResult{ans: ans, err: err}
	}()
	return out
}

// sampleAsync asks the sampling request p through asker in the
// background.
func sampleAsync(ctx context.Context, asker conn.Asker, p *mcp.CreateMessageWithToolsParams) <-chan askResult {
	out := make(chan askResult, 1)
	go func() {
		res, err := asker.Sample(ctx, p, conn.FromRequest)
		out <- askResult{res: res, err: err}
	}()
	return out
}

func awaitAsk(t *testing.T, ch <-chan askResult) askResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("Ask did not return")
	}
	return askResult{}
}

const nameForm = `{"type":"object","properties":{"name":{"type":"string","minLength":2}},"required":["name"]}`

func formParams() *mcp.ElicitParams {
	return &mcp.ElicitParams{Message: "Who are you?", RequestedSchema: json.RawMessage(nameForm)}
}

// askerFor returns the asker the connection to server id was given.
func askerFor(f *fixture, _, id, _ string) conn.Asker {
	return f.conn(id).dial.Asker
}

func TestElicitationFirstAnswerWins(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	one, two := openDashboard(t, s), openDashboard(t, s)

	done := elicitAsync(context.Background(), askerFor(f, "alice", id, "docs"), formParams())
	a := one.asks(1)[0]
	if b := two.asks(1)[0]; b.ID != a.ID {
		t.Fatalf("the dashboards show asks %s and %s", a.ID, b.ID)
	}
	if a.Server != id || a.ServerName != "docs" || a.State != wire.AskPending || a.Kind != wire.AskForm || a.Deadline.IsZero() {
		t.Fatalf("shown ask %+v", a)
	}

	if rep := one.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}}); rep.Err != nil {
		t.Fatalf("first answer: %+v", rep.Err)
	}
	if rep := two.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionDecline}); !refused(rep, wire.CodeNotFound) {
		t.Fatalf("second answer: %s, want not_found", said(rep))
	}
	r := awaitAsk(t, done)
	if r.err != nil || r.ans.Result.Action != "accept" || r.ans.Result.Content["name"] != "Ada" {
		t.Fatalf("Ask = %+v, %v", r.ans, r.err)
	}
	one.asks(0)
	two.asks(0)
}

func TestInvalidAnswersAreRefusedAndTheAskStays(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	d := openDashboard(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	elicitAsync(ctx, askerFor(f, "alice", id, "docs"), formParams())
	a := d.asks(1)[0]

	tests := []struct {
		name string
		op   wire.OpName
		args any
		code wire.Code
		says string
	}{
		{"invalid form", wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionAccept, Content: map[string]any{"name": "A"}}, wire.CodeBadRequest, "name: must be at least 2 characters"},
		{"unknown ask", wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: "nope", Action: wire.ActionCancel}, wire.CodeNotFound, "no such ask"},
		{"dismiss a pending ask", wire.OpDismissAsk, wire.AskArgs{Ask: a.ID}, wire.CodeBadRequest, "not waiting"},
		{"complete a pending ask", wire.OpCompleteAsk, wire.AskArgs{Ask: a.ID}, wire.CodeBadRequest, "not waiting"},
		{"no arguments", wire.OpAnswerAsk, nil, wire.CodeBadRequest, "missing"},
	}
	for _, tt := range tests {
		rep := d.Op(tt.op, tt.args)
		if !refused(rep, tt.code) || !strings.Contains(rep.Err.Message, tt.says) {
			t.Errorf("%s: %s, want %s saying %q", tt.name, said(rep), tt.code, tt.says)
		}
	}
	if n := len(d.state().Asks); n != 1 {
		t.Errorf("%d asks shown after refused answers, want 1", n)
	}
}

// asksSent reads the frames sub is sent, from a state numbered seq that
// holds no asks, until they bring n asks, and returns those in the order
// they came and the seq reached: a snapshot brings its asks, a delta (which
// must follow seq) the asks it puts. It looks at what the frames carry and
// keeps no state of its own.
func asksSent(t *testing.T, sub *Subscriber, seq uint64, n int) ([]wire.Ask, uint64) {
	t.Helper()
	var asks []wire.Ask
	for len(asks) != n {
		fr := next(t, sub)
		switch fr.Type {
		case wire.TypeSnapshot:
			var snap wire.Snapshot
			if err := json.Unmarshal(fr.Data, &snap); err != nil {
				t.Fatal(err)
			}
			asks, seq = snap.Asks, fr.Seq
		case wire.TypeDelta:
			if fr.Seq != seq+1 {
				t.Fatalf("delta %d after %d", fr.Seq, seq)
			}
			seq = fr.Seq
			for _, c := range changesOf(t, fr) {
				if c.Kind != wire.KindAsk || c.Remove || slices.ContainsFunc(asks, func(a wire.Ask) bool { return a.ID == c.Key }) {
					continue
				}
				var a wire.Ask
				if err := json.Unmarshal(c.Value, &a); err != nil {
					t.Fatal(err)
				}
				asks = append(asks, a)
			}
		}
	}
	return asks, seq
}

// The frames themselves: a fresh snapshot holds the pending asks, and a
// dashboard that resumes behind them is sent them again.
func TestPendingAsksAreDeliveredAgainAfterAReconnect(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	first := s.Subscribe(wire.Hello{})
	start := snapshotOf(t, first)
	var state wire.Snapshot
	if err := json.Unmarshal(start.Data, &state); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	asker := askerFor(f, "alice", id, "docs")
	elicitAsync(ctx, asker, formParams())
	elicitAsync(ctx, asker, formParams())
	shown, seq := asksSent(t, first, start.Seq, 2)

	var reloaded wire.Snapshot // a reload: a fresh snapshot
	if err := json.Unmarshal(snapshotOf(t, s.Subscribe(wire.Hello{})).Data, &reloaded); err != nil {
		t.Fatal(err)
	}
	if len(reloaded.Asks) != 2 || reloaded.Asks[0].ID != shown[0].ID || reloaded.Asks[1].ID != shown[1].ID {
		t.Fatalf("snapshot asks %+v, want %+v in arrival order", reloaded.Asks, shown)
	}

	behind := s.Subscribe(wire.Hello{Epoch: state.Epoch, Seq: seq - 2}) // a reconnect that missed both
	asksSent(t, behind, seq-2, 2)
}

func TestRemovingAServerWithdrawsItsAsks(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	other := addServer(t, s, "other", "http://127.0.0.1:9/other")
	d := openDashboard(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	elicitAsync(ctx, askerFor(f, "alice", id, "docs"), formParams())
	elicitAsync(ctx, askerFor(f, "alice", other, "other"), formParams())
	d.asks(2)
	if err := s.RemoveServer(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	left := d.asks(1)
	if left[0].Server != other {
		t.Fatalf("left %+v, want the other server's ask", left)
	}
	snap, _ := s.Snapshot()
	if len(snap.Asks) != 1 || snap.Asks[0].Server != other {
		t.Fatalf("snapshot asks %+v", snap.Asks)
	}
	// A connection that asks for a server already removed gets cancel.
	ans, err := askerFor(f, "alice", id, "docs").Elicit(ctx, formParams(), conn.FromRequest)
	if err != nil || ans.Result == nil || ans.Result.Action != "cancel" {
		t.Fatalf("ask for a removed server = %+v, %v; want cancel", ans, err)
	}
}

func TestAcceptedURLWaitsUntilMarkedDone(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	d := openDashboard(t, s)
	done := elicitAsyncFrom(context.Background(), askerFor(f, "alice", id, "docs"), &mcp.ElicitParams{
		Mode: "url", Message: "Connect", URL: "https://example.com/connect", ElicitationID: "setup",
	}, conn.FromURLRequired)
	a := d.asks(1)[0]
	if rep := d.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionAccept, Content: map[string]any{"x": "y"}}); !refused(rep, wire.CodeBadRequest) {
		t.Fatalf("URL answer with content: %s, want bad_request", said(rep))
	}
	if rep := d.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionAccept}); rep.Err != nil {
		t.Fatalf("accept: %+v", rep.Err)
	}
	d.until("the ask waits", func(s wire.Snapshot) bool { return len(s.Asks) == 1 && s.Asks[0].State == wire.AskWaiting })
	r := awaitAsk(t, done)
	if r.err != nil || r.ans.Result.Action != "accept" || r.ans.Wait == nil {
		t.Fatalf("Ask = %+v, %v", r.ans, r.err)
	}
	waited := make(chan error, 1)
	go func() { waited <- r.ans.Wait(context.Background()) }()
	if rep := d.Op(wire.OpCompleteAsk, wire.AskArgs{Ask: a.ID}); rep.Err != nil {
		t.Fatalf("complete: %+v", rep.Err)
	}
	if err := <-waited; err != nil {
		t.Fatalf("Wait = %v", err)
	}
	d.asks(0)
}

func TestAskDeadlineComesFromTheConfig(t *testing.T) {
	dir := t.TempDir()
	f := newFixtureWith(t, dir, func(c *Config) { c.Asks = broker.Config{Timeout: 20 * time.Millisecond} })
	s := f.m.Session("alice")
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	r := awaitAsk(t, elicitAsync(context.Background(), askerFor(f, "alice", id, "docs"), formParams()))
	if r.err != nil || r.ans.Result.Action != "cancel" {
		t.Fatalf("Ask = %+v, %v; want cancel at the deadline", r.ans, r.err)
	}
}

func TestAskModesArePersistedPerServer(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, dir)
	s := f.m.Session("alice")
	ctx := context.Background()
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	other := addServer(t, s, "other", "http://127.0.0.1:9/other")
	modes := func(f *fixture, server string) conn.AskModes { return f.conn(server).dial.Modes }
	if got := modes(f, id); got != conn.AllAskModes {
		t.Fatalf("default modes %+v, want all", got)
	}
	before := f.conn(id)
	if err := owner(t, s, id).SetAskModes(ctx, wire.SetAskModesArgs{Server: id, Form: true, Sampling: wire.SamplingOff}); err != nil {
		t.Fatal(err)
	}
	before.mu.Lock()
	closed := before.closed
	before.mu.Unlock()
	if !closed || f.conn(id) == before {
		t.Error("the server was not reconnected with its new modes")
	}
	f.conn(id).emit(conn.State{State: wire.StateReady}) // the new connection's first state
	want := wire.AskModes{Form: true, Sampling: wire.SamplingOff}
	if snap, _ := s.Snapshot(); snap.ServerByID(id).AskModes == nil || *snap.ServerByID(id).AskModes != want {
		t.Errorf("dashboard sees modes %+v, want %+v", snap.ServerByID(id).AskModes, want)
	}
	if got := modes(f, id); got != (conn.AskModes{Form: true}) {
		t.Errorf("modes after narrowing %+v, want form only, no sampling", got)
	}
	if err := owner(t, s, other).SetAskModes(ctx, wire.SetAskModesArgs{Server: other}); err != nil {
		t.Fatal(err)
	}
	if _, err := runOp(t, s, wire.OpSetAskModes, wire.SetAskModesArgs{Server: "nope", Form: true}); err == nil {
		t.Error("modes set for an unknown server")
	}
	if err := owner(t, s, id).SetAskModes(ctx, wire.SetAskModesArgs{Server: id, Sampling: wire.SamplingModel}); wireCode(err) != wire.CodeNotConfigured {
		t.Errorf("model mode without a model: %v, want %s", err, wire.CodeNotConfigured)
	}
	if err := owner(t, s, id).SetAskModes(ctx, wire.SetAskModesArgs{Server: id, Sampling: "sometimes"}); wireCode(err) != wire.CodeBadRequest {
		t.Errorf("an unknown sampling mode: %v, want %s", err, wire.CodeBadRequest)
	}

	f.m.Close()
	f.store.Close()
	again := newFixture(t, dir)
	if err := again.m.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if got := modes(again, id); got != (conn.AskModes{Form: true}) {
		t.Errorf("modes after a restart %+v, want form only", got)
	}
	if got := modes(again, other); got != (conn.AskModes{Sampling: true}) {
		t.Errorf("other server's modes %+v, want sampling only (the default when unset)", got)
	}
}

func TestRemovingAServerForgetsItsAskModes(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	ctx := context.Background()
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	if err := owner(t, s, id).SetAskModes(ctx, wire.SetAskModesArgs{Server: id, Form: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveServer(ctx, id); err != nil {
		t.Fatal(err)
	}
	if modes, err := f.store.AskModes(ctx, "alice", id); err != nil || modes != "" {
		t.Errorf("the removed server's modes are still stored (%q, err=%v)", modes, err)
	}
}

// wireCode is the code of a wire error, or "".
func wireCode(err error) wire.Code {
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return ""
}

// A request the relay cannot show is refused with invalid params, and
// nobody is asked.
func TestOversizedSchemaIsInvalidParams(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	big := `{"type":"object","properties":{"big":{"type":"string","description":"` + strings.Repeat("d", 64<<10) + `"}}}`
	_, err := askerFor(f, "alice", id, "docs").Elicit(context.Background(), &mcp.ElicitParams{Message: "x", RequestedSchema: json.RawMessage(big)}, conn.FromRequest)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "bytes") {
		t.Fatalf("got %v, want -32602 for the schema's size", err)
	}
	if snap, _ := s.Snapshot(); len(snap.Asks) != 0 {
		t.Errorf("asked %+v", snap.Asks)
	}
}

// A URL the relay will not open is declined, saying why in _meta; one a
// -32042 error requires is refused to the connection, saying why.
func TestRefusedURLIsDeclinedWithTheReason(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	asker := askerFor(f, "alice", id, "docs")
	p := &mcp.ElicitParams{Mode: "url", Message: "Click", URL: "javascript:alert(1)", ElicitationID: "e1"}
	ans, err := asker.Elicit(context.Background(), p, conn.FromRequest)
	if err != nil || ans.Result.Action != "decline" || !strings.Contains(fmt.Sprint(ans.Result.Meta[declineReasonKey]), "http") {
		t.Fatalf("got %+v, %v; want decline with the reason", ans.Result, err)
	}
	_, err = asker.Elicit(context.Background(), p, conn.FromURLRequired)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || !strings.Contains(je.Message, "http") {
		t.Fatalf("required URL: %v, want a refusal saying why", err)
	}
}

// A server's elicitation id is shown safe, and its completion, with the id
// as the server sent it, still finds the ask.
func TestURLCompletionMatchesTheSanitizedID(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	d := openDashboard(t, s)
	asker := askerFor(f, "alice", id, "docs")
	done := elicitAsync(context.Background(), asker, &mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://example.com/consent", ElicitationID: "e\x1b1"})
	a := d.asks(1)[0]
	if a.Kind != wire.AskURL || a.From != wire.AskFromElicitation || a.ElicitationID != "e 1" {
		t.Fatalf("shown ask %+v", a)
	}
	if rep := d.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionAccept}); rep.Err != nil {
		t.Fatalf("accept: %+v", rep.Err)
	}
	r := awaitAsk(t, done)
	if r.err != nil || r.ans.Wait == nil {
		t.Fatalf("Elicit = %+v, %v", r.ans, r.err)
	}
	asker.Complete("e\x1b1")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.ans.Wait(ctx); err != nil {
		t.Fatalf("Wait = %v; the completion did not find the ask", err)
	}
}
