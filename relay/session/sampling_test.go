package session

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/models"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// drafterAt is the drafter of the model m-1 at the fixture fx.
func drafterAt(t *testing.T, fx *modelfixture.Server) Drafter {
	t.Helper()
	reg, err := models.New([]models.Spec{{Name: "m-1", Provider: llm.OpenAI, URL: fx.OpenAIURL(), Model: "m-1", Key: "k"}},
		models.Options{HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0)})
	if err != nil {
		t.Fatal(err)
	}
	d, err := reg.Drafter("m-1")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// modelEndpoint is a model that always answers text, and the fixture that
// serves it, which counts the requests it got.
func modelEndpoint(t *testing.T, text string) (Drafter, *modelfixture.Server) {
	t.Helper()
	fx := modelfixture.Start(t, modelfixture.Options{Decide: func(*modelfixture.Request) modelfixture.Reply { return modelfixture.Text(text) }})
	return drafterAt(t, fx), fx
}

func samplingParams() *mcp.CreateMessageWithToolsParams {
	return &mcp.CreateMessageWithToolsParams{MaxTokens: 50,
		Messages: []*mcp.SamplingMessageV2{{Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: "Say hi"}}}}}
}

func TestDraftAsksTheModelOnlyWhenPressed(t *testing.T) {
	drafter, fx := modelEndpoint(t, "Hi there.")
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
	if len(fx.Requests()) != 0 {
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
	if !refused(rep, wire.CodeNotConfigured) || !strings.Contains(rep.Err.Message, "--model ") {
		t.Fatalf("draft without a model: %s", said(rep))
	}
}

func TestModelModeAnswersWithoutACard(t *testing.T) {
	drafter, fx := modelEndpoint(t, "Automatic.")
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
	if n := len(fx.Requests()); n != 1 {
		t.Errorf("the model was asked %d times, want once", n)
	}
	if snap, _ := s.Snapshot(); len(snap.Asks) != 0 {
		t.Errorf("a card was shown in model mode: %+v", snap.Asks)
	}
}

// In model mode no card stands between a server and the model, so the
// sampling requests the model answers at once are capped: one beyond the
// cap is refused at once and never reaches the model.
func TestModelModeCapsTheRequestsAnsweredAtOnce(t *testing.T) {
	release := make(chan struct{})
	fx := modelfixture.Start(t, modelfixture.Options{Decide: func(*modelfixture.Request) modelfixture.Reply {
		<-release // the answers wait until the test lets them go
		return modelfixture.Text("ok")
	}})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(free) // before the fixture stops: no answer is left waiting
	drafter := drafterAt(t, fx)
	f := newFixtureWith(t, t.TempDir(), func(c *Config) { c.Drafter = drafter })
	s := f.m.Session("alice")
	id := addServer(t, s, "docs", "http://127.0.0.1:9/mcp")
	if err := owner(t, s, id).SetAskModes(context.Background(), wire.SetAskModesArgs{Server: id, Form: true, URL: true, Sampling: wire.SamplingModel}); err != nil {
		t.Fatal(err)
	}
	asker := askerFor(f, "alice", id, "docs")
	var running []<-chan askResult
	for i := range maxModelAnswers {
		running = append(running, sampleAsync(context.Background(), asker, samplingParams()))
		fx.Await(t, i+1)
	}
	r := awaitAsk(t, sampleAsync(context.Background(), asker, samplingParams()))
	var je *jsonrpc.Error
	if !errors.As(r.err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "already answering") {
		t.Errorf("a request beyond the cap got %+v, %v; want a refusal", r.res, r.err)
	}
	if n := len(fx.Requests()); n != maxModelAnswers {
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
