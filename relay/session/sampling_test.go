package session

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/model"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// modelEndpoint is an OpenAI-compatible endpoint that always answers text,
// and counts the requests it got.
func modelEndpoint(t *testing.T, text string) (*model.Client, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"model":"m-1","choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"`+text+`"}}]}`)
	}))
	t.Cleanup(srv.Close)
	c, err := model.New(model.Config{URL: srv.URL, Name: "m-1", Key: "k", HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0)})
	if err != nil {
		t.Fatal(err)
	}
	return c, &calls
}

func samplingParams() *mcp.CreateMessageWithToolsParams {
	return &mcp.CreateMessageWithToolsParams{MaxTokens: 50,
		Messages: []*mcp.SamplingMessageV2{{Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: "Say hi"}}}}}
}

func TestDraftAsksTheModelOnlyWhenPressed(t *testing.T) {
	drafter, calls := modelEndpoint(t, "Hi there.")
	f := newFixtureWith(t, t.TempDir(), func(c *Config) { c.Drafter = drafter })
	s := f.m.Session("alice")
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	one, two := openDashboard(t, s), openDashboard(t, s)
	done := sampleAsync(context.Background(), askerFor(f, "alice", id, "docs"), samplingParams())
	a := one.asks(1)[0]
	two.asks(1)
	if a.Kind != wire.AskSampling || a.Sampling == nil || a.Sampling.Drafter != "m-1" {
		t.Fatalf("ask %+v: want a sampling ask naming the drafter", a)
	}
	if calls.Load() != 0 {
		t.Fatal("the model was asked before anyone pressed Draft")
	}
	rep := one.Op(wire.OpDraftAsk, wire.AskArgs{Ask: a.ID})
	if rep.Err != nil {
		t.Fatalf("draft: %+v", rep.Err)
	}
	var draft wire.SamplingResult
	if err := json.Unmarshal(rep.Data, &draft); err != nil {
		t.Fatal(err)
	}
	if len(draft.Content) != 1 || draft.Content[0].Text != "Hi there." || draft.Model != "m-1" {
		t.Errorf("draft %+v", draft)
	}
	if rep := one.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionAccept, Sampling: &draft}); rep.Err != nil {
		t.Fatalf("approve: %+v", rep.Err)
	}
	if rep := two.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionDecline}); !refused(rep, wire.CodeNotFound) {
		t.Fatalf("second answer: %s, want not_found", said(rep))
	}
	if r := awaitAsk(t, done); r.err != nil || r.res == nil || r.res.Content[0].(*mcp.TextContent).Text != "Hi there." {
		t.Fatalf("the server got %+v, %v", r.res, r.err)
	}
	one.asks(0)
	two.asks(0)
}

func TestDraftWithoutAModelSaysHowToConfigureOne(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	d := openDashboard(t, s)
	sampleAsync(context.Background(), askerFor(f, "alice", id, "docs"), samplingParams())
	a := d.asks(1)[0]
	if a.Sampling.Drafter != "" {
		t.Errorf("a drafter is named without a model: %q", a.Sampling.Drafter)
	}
	rep := d.Op(wire.OpDraftAsk, wire.AskArgs{Ask: a.ID})
	if !refused(rep, wire.CodeNotConfigured) || !strings.Contains(rep.Err.Message, "--model-url") {
		t.Fatalf("draft without a model: %s", said(rep))
	}
}

func TestModelModeAnswersWithoutACard(t *testing.T) {
	drafter, calls := modelEndpoint(t, "Automatic.")
	f := newFixtureWith(t, t.TempDir(), func(c *Config) { c.Drafter = drafter })
	s := f.m.Session("alice")
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	if err := owner(t, s, id).SetAskModes(context.Background(), wire.SetAskModesArgs{Server: id, Form: true, URL: true, Sampling: wire.SamplingModel}); err != nil {
		t.Fatal(err)
	}
	r := awaitAsk(t, sampleAsync(context.Background(), askerFor(f, "alice", id, "docs"), samplingParams()))
	if r.err != nil || r.res == nil || r.res.Content[0].(*mcp.TextContent).Text != "Automatic." {
		t.Fatalf("the server got %+v, %v", r.res, r.err)
	}
	if calls.Load() != 1 {
		t.Errorf("the model was asked %d times, want once", calls.Load())
	}
	if snap, _ := s.Snapshot(); len(snap.Asks) != 0 {
		t.Errorf("a card was shown in model mode: %+v", snap.Asks)
	}
}

// In model mode no card stands between a server and the model, so the
// sampling requests the model answers at once are capped: one beyond the
// cap is refused at once and never reaches the model.
func TestModelModeCapsTheRequestsAnsweredAtOnce(t *testing.T) {
	var calls atomic.Int32
	arrived, release := make(chan struct{}, 2*maxModelAnswers), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body)
		arrived <- struct{}{}
		<-release
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"model":"m-1","choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}]}`)
	}))
	t.Cleanup(srv.Close)
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(free) // before srv.Close: no handler is left blocked
	drafter, err := model.New(model.Config{URL: srv.URL, Name: "m-1", HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0)})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureWith(t, t.TempDir(), func(c *Config) { c.Drafter = drafter })
	s := f.m.Session("alice")
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	if err := owner(t, s, id).SetAskModes(context.Background(), wire.SetAskModesArgs{Server: id, Form: true, URL: true, Sampling: wire.SamplingModel}); err != nil {
		t.Fatal(err)
	}
	asker := askerFor(f, "alice", id, "docs")
	var running []<-chan askResult
	for range maxModelAnswers {
		running = append(running, sampleAsync(context.Background(), asker, samplingParams()))
		<-arrived
	}
	r := awaitAsk(t, sampleAsync(context.Background(), asker, samplingParams()))
	var je *jsonrpc.Error
	if !errors.As(r.err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "already answering") {
		t.Errorf("a request beyond the cap got %+v, %v; want a refusal", r.res, r.err)
	}
	if n := calls.Load(); n != maxModelAnswers {
		t.Errorf("the model got %d requests, want %d", n, maxModelAnswers)
	}
	free()
	for _, ch := range running {
		if r := awaitAsk(t, ch); r.err != nil {
			t.Errorf("a request within the cap: %v", r.err)
		}
	}
	if r := awaitAsk(t, sampleAsync(context.Background(), asker, samplingParams())); r.err != nil {
		t.Errorf("a request once the others were done: %v", r.err)
	}
}

func TestSamplingDeclinedIsUserRejected(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	d := openDashboard(t, s)
	done := sampleAsync(context.Background(), askerFor(f, "alice", id, "docs"), samplingParams())
	a := d.asks(1)[0]
	if a.Kind != wire.AskSampling || a.From != wire.AskFromSampling || a.Sampling == nil || a.Sampling.Messages[0].Content[0].Text != "Say hi" {
		t.Fatalf("shown ask %+v", a)
	}
	if rep := d.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionDecline}); rep.Err != nil {
		t.Fatalf("decline: %+v", rep.Err)
	}
	r := awaitAsk(t, done)
	var je *jsonrpc.Error
	if !errors.As(r.err, &je) || je.Code != conn.RPCUserRejected || r.res != nil {
		t.Errorf("the server got %+v, %v; want code -1", r.res, r.err)
	}
}

func TestSamplingNotAnsweredInTimeIsARequestTimeout(t *testing.T) {
	f := newFixtureWith(t, t.TempDir(), func(c *Config) { c.Asks = broker.Config{Timeout: 20 * time.Millisecond} })
	s := f.m.Session("alice")
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	r := awaitAsk(t, sampleAsync(context.Background(), askerFor(f, "alice", id, "docs"), samplingParams()))
	var je *jsonrpc.Error
	if !errors.As(r.err, &je) || je.Code != conn.RPCRequestTimeout || r.res != nil {
		t.Errorf("the server got %+v, %v; want a timeout error and no message", r.res, r.err)
	}
}
