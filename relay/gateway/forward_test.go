package gateway_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/e2e/samplingfixture"
	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/models"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// sampler is an agent's sampling handler: it records the requests it gets
// and answers with reply.
type sampler struct {
	mu    sync.Mutex
	got   []*mcp.CreateMessageWithToolsParams
	reply func(*mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error)
}

func (s *sampler) handle(_ context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
	s.mu.Lock()
	s.got = append(s.got, req.Params)
	s.mu.Unlock()
	return s.reply(req.Params)
}

func (s *sampler) requests() []*mcp.CreateMessageWithToolsParams {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*mcp.CreateMessageWithToolsParams(nil), s.got...)
}

// connectSampling connects an agent whose client declares sampling with
// tools, answered by s (nil: the client declares no sampling).
func (r *relay) connectSampling(key, era string, s *sampler) *agent {
	r.t.Helper()
	a := &agent{wire: &tap{base: http.DefaultTransport, key: key}, changed: make(chan struct{}, 1)}
	opts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case a.changed <- struct{}{}:
		default:
		}
	}}
	if s != nil {
		opts.CreateMessageWithToolsHandler = s.handle
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "sampling-agent", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.url + gateway.Path, HTTPClient: &http.Client{Transport: a.wire}},
		&mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { cs.Close() })
	a.cs = cs
	return a
}

// forward hands ask to its agent from the dashboard; nil means it was.
func (d *dashboard) forward(ask string) *wire.Error {
	d.t.Helper()
	return d.Op(wire.OpForwardAsk, wire.AskArgs{Ask: ask}).Err
}

// activity returns the texts of server's activity of kind that v shows.
func activity(v store.View, server string, kind wire.ActivityKind) []string {
	var out []string
	for _, j := range v.Snapshot.Journals {
		if j.Server != server {
			continue
		}
		for _, a := range j.Activity {
			if a.Kind == kind {
				out = append(out, a.Text)
			}
		}
	}
	return out
}

func TestForwardedSamplingIsAnsweredByTheAgentsClient(t *testing.T) {
	for _, era := range agentEras {
		t.Run(era, func(t *testing.T) { testForwardedSampling(t, era, false) })
	}
	// The server asking through input requests too.
	t.Run("2026-07-28 both ends", func(t *testing.T) { testForwardedSampling(t, "2026-07-28", true) })
	t.Run("2025-11-25 agent of a 2026-07-28 server", func(t *testing.T) { testForwardedSampling(t, "2025-11-25", true) })
}

// testForwardedSampling has an agent speaking era answer a two-round
// sampling conversation the person hands it, of a server that speaks only
// 2026-07-28 when stateless.
func testForwardedSampling(t *testing.T, era string, stateless bool) {
	r := newRelay(t, broker.Config{})
	fx := samplingfixture.Start(t, samplingfixture.Options{Stateless: stateless})
	id := r.add("alice", "sampler", fx.URL())
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1", ForwardSampling: true})
	s := &sampler{reply: func(p *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
		last := p.Messages[len(p.Messages)-1]
		if tr, ok := last.Content[0].(*mcp.ToolResultContent); ok {
			return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "agent-model", StopReason: "endTurn",
				Content: []mcp.Content{&mcp.TextContent{Text: "Agent: " + tr.Content[0].(*mcp.TextContent).Text}}}, nil
		}
		return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "agent-model", StopReason: "toolUse",
			Content: []mcp.Content{&mcp.ToolUseContent{ID: "call1", Name: samplingfixture.ToolName, Input: map[string]any{"city": "Oslo"}}}}, nil
	}}
	a := r.connectSampling("k1", era, s)
	d := r.dashboard("alice")

	done := a.callAsync(context.Background(), id+"__sample_tools")
	for round := 1; round <= 2; round++ {
		ask := d.ask()
		if !ask.Forward || ask.Agent != "Claude" || ask.Tool != "sample_tools" || ask.Kind != wire.AskSampling {
			t.Fatalf("round %d: ask forward %v agent %q tool %q kind %q", round, ask.Forward, ask.Agent, ask.Tool, ask.Kind)
		}
		if got := len(s.requests()); got != round-1 {
			t.Fatalf("round %d: the agent got %d requests before the person's click", round, got)
		}
		if err := d.forward(ask.ID); err != nil {
			t.Fatalf("round %d: forward: %v", round, err)
		}
		d.Until("the forwarded ask settled", func(v store.View) bool {
			return len(v.Snapshot.Asks) == 0 || v.Snapshot.Asks[0].ID != ask.ID
		})
	}
	res := <-done
	out, err := samplingfixture.ParseOutcome(text(res))
	if err != nil {
		t.Fatalf("the agent's result: %s (%v)", text(res), err)
	}
	want := "Agent: " + samplingfixture.Weather("Oslo")
	if out.Rounds != 2 || out.Text != want || out.Model != "agent-model" || len(out.ToolCalls) != 1 || out.ToolCalls[0].Input["city"] != "Oslo" {
		t.Errorf("outcome %+v, want 2 rounds ending %q by agent-model after a get_weather call for Oslo", out, want)
	}
	reqs := s.requests()
	if len(reqs) != 2 {
		t.Fatalf("the agent got %d requests, want 2", len(reqs))
	}
	if len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Name != samplingfixture.ToolName || reqs[0].ToolChoice == nil || reqs[0].ToolChoice.Mode != "auto" {
		t.Errorf("the request reached the agent without its tools: %+v", reqs[0])
	}
	for _, req := range reqs {
		for k := range req.Meta {
			if strings.HasPrefix(k, "io.modelcontextprotocol/") && k != "io.modelcontextprotocol/related-task" {
				t.Errorf("a request handed to the agent carries the _meta of another leg: %v", req.Meta)
			}
		}
	}
	if len(reqs[1].Messages) != 3 {
		t.Errorf("the second request has %d messages, want the history of 3", len(reqs[1].Messages))
	}
	// 2026-07-28 has no requests to the client during a call: each round
	// came as an input_required result the agent's client retried.
	got := a.wire.received()
	wantRounds := 0
	if era >= "2026-07-28" {
		wantRounds = 2
	}
	if n := strings.Count(got, `"resultType":"input_required"`); n != wantRounds {
		t.Errorf("%d input_required results, want %d", n, wantRounds)
	}
	if era < "2026-07-28" && strings.Contains(got, `"resultType"`) {
		t.Errorf("a %s agent got results of 2026-07-28", era)
	}
	v := d.Until("the forwards noted", func(v store.View) bool { return len(activity(v, id, wire.ActivitySamplingForwarded)) == 2 })
	if note := activity(v, id, wire.ActivitySamplingForwarded)[0]; !strings.Contains(note, "Claude") || !strings.Contains(note, "sample_tools") {
		t.Errorf("activity note %q does not name the agent and tool", note)
	}
}

func TestForwardFailureLeavesTheAskToThePerson(t *testing.T) {
	r := newRelay(t, broker.Config{})
	fx := samplingfixture.Start(t, samplingfixture.Options{})
	id := r.add("alice", "sampler", fx.URL())
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1", ForwardSampling: true})
	s := &sampler{reply: func(*mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
		return nil, errors.New("the user declined to sample")
	}}
	a := r.connectSampling("k1", eras[0], s)
	d := r.dashboard("alice")

	done := a.callAsync(context.Background(), id+"__sample_text")
	ask := d.ask()
	werr := d.forward(ask.ID)
	if werr == nil || werr.Code != wire.CodeUpstream || !strings.Contains(werr.Message, "the user declined to sample") {
		t.Fatalf("forward to a refusing client: %v", werr)
	}
	if len(s.requests()) != 1 {
		t.Errorf("the agent got %d requests, want 1", len(s.requests()))
	}
	if asks := d.View().Snapshot.Asks; len(asks) != 1 || asks[0].ID != ask.ID {
		t.Fatalf("the ask did not stay after the failed forward: %+v", asks)
	}
	reply := d.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: ask.ID, Action: wire.ActionAccept,
		Sampling: &wire.SamplingResult{Content: []wire.SamplingContent{{Type: wire.ContentText, Text: "a person's haiku"}}}})
	if reply.Err != nil {
		t.Fatalf("the person's answer after a failed forward: %+v", reply.Err)
	}
	out, err := samplingfixture.ParseOutcome(text(<-done))
	if err != nil || out.Text != "a person's haiku" || out.Model != broker.DefaultAnswerModel {
		t.Errorf("outcome %+v (%v)", out, err)
	}
}

func TestForwardIsOfferedOnlyWithTheKeyAndTheClientsSampling(t *testing.T) {
	yes := func(*mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
		return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "m", Content: []mcp.Content{&mcp.TextContent{Text: "forwarded"}}}, nil
	}
	cases := []struct {
		name    string
		flag    bool
		sampler *sampler
		era     string
	}{
		{"key without the setting", false, &sampler{reply: yes}, eras[0]},
		{"client without sampling", true, nil, eras[0]},
		{"2026-07-28 client without sampling", true, nil, "2026-07-28"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRelay(t, broker.Config{})
			fx := samplingfixture.Start(t, samplingfixture.Options{})
			id := r.add("alice", "sampler", fx.URL())
			r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1", ForwardSampling: c.flag})
			a := r.connectSampling("k1", c.era, c.sampler)
			d := r.dashboard("alice")
			done := a.callAsync(context.Background(), id+"__sample_text")
			ask := d.ask()
			if ask.Forward || ask.Agent != "Claude" {
				t.Errorf("ask forward %v agent %q: forwarding offered", ask.Forward, ask.Agent)
			}
			werr := d.forward(ask.ID)
			if werr == nil || werr.Code != wire.CodeBadRequest || !strings.Contains(werr.Message, "cannot be handed to an agent") {
				t.Errorf("forward op: %v, want a clear refusal", werr)
			}
			if c.sampler != nil && len(c.sampler.requests()) != 0 {
				t.Errorf("the agent got a request")
			}
			d.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: ask.ID, Action: wire.ActionDecline})
			if out, _ := samplingfixture.ParseOutcome(text(<-done)); out.Error == "" {
				t.Errorf("declined: outcome %+v", out)
			}
		})
	}
}

func TestModelModeAnswersWithoutOfferingTheAgent(t *testing.T) {
	endpoint := modelfixture.Start(t, modelfixture.Options{Decide: func(*modelfixture.Request) modelfixture.Reply {
		return modelfixture.Text("from the model")
	}})
	reg, err := models.New([]models.Spec{{Name: "m-1", Provider: llm.OpenAI, URL: endpoint.OpenAIURL(), Model: "model-1"}},
		models.Options{HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0)})
	if err != nil {
		t.Fatal(err)
	}
	drafter, err := reg.Drafter("")
	if err != nil {
		t.Fatal(err)
	}
	r := newRelayWith(t, session.Config{Drafter: drafter}, gateway.Config{})
	fx := samplingfixture.Start(t, samplingfixture.Options{})
	id := r.add("alice", "sampler", fx.URL())
	s := r.m.Session("alice")
	o, _ := s.Server(id)
	if err := o.SetAskModes(context.Background(), wire.SetAskModesArgs{Server: id, Form: true, URL: true, Sampling: wire.SamplingModel}); err != nil {
		t.Fatal(err)
	}
	r.waitReady("alice", id)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1", ForwardSampling: true})
	agentSampler := &sampler{reply: func(*mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
		return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "agent", Content: []mcp.Content{&mcp.TextContent{Text: "from the agent"}}}, nil
	}}
	a := r.connectSampling("k1", eras[0], agentSampler)
	a.waitTool(t, id+"__sample_text")
	out, err := samplingfixture.ParseOutcome(text(<-a.callAsync(context.Background(), id+"__sample_text")))
	if err != nil || out.Model != "model-1" || out.Text != "from the model" || out.Error != "" {
		t.Fatalf("outcome %+v (%v), want the model's answer", out, err)
	}
	if n := len(agentSampler.requests()); n != 0 {
		t.Errorf("the agent got %d requests in model mode", n)
	}
	if snap, _ := s.Snapshot(); len(snap.Asks) != 0 {
		t.Errorf("a card was shown in model mode: %+v", snap.Asks)
	}
}

// waitReady waits until user's server id is ready.
func (r *relay) waitReady(user, id string) {
	r.t.Helper()
	r.waitState(user, id, func(s wire.ServerState) bool { return s == wire.StateReady })
}

// waitState waits until user's server id is in a state ok accepts.
func (r *relay) waitState(user, id string, ok func(wire.ServerState) bool) {
	r.t.Helper()
	s := r.m.Session(user)
	changed := make(chan struct{}, 1)
	stop := s.Watch(func(string) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer stop()
	deadline := time.After(waitFor)
	for {
		for _, st := range s.Servers() {
			if st.ID == id && ok(st.State) {
				return
			}
		}
		select {
		case <-changed:
		case <-deadline:
			r.t.Fatalf("server %s not in the awaited state within %v", id, waitFor)
		}
	}
}

// waitTool waits until the agent lists tool.
func (a *agent) waitTool(t *testing.T, tool string) {
	t.Helper()
	deadline := time.After(waitFor)
	for a.toolNames(t)[tool] == nil {
		select {
		case <-a.changed:
		case <-deadline:
			t.Fatalf("the agent does not list %s within %v", tool, waitFor)
		}
	}
}

// A 2026-07-28 agent answers a call's sampling in a bounded number of
// rounds: past them the call ends as a tool error.
func TestHandedSamplingRoundsAreBounded(t *testing.T) {
	r := newRelay(t, broker.Config{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ask_forever", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for {
			if _, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "again"}}}}); err != nil {
				return nil, err
			}
		}
	})
	id := r.add("alice", "asker", serveUpstream(t, srv))
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1", ForwardSampling: true})
	s := &sampler{reply: func(*mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
		return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "m", Content: []mcp.Content{&mcp.TextContent{Text: "once more"}}}, nil
	}}
	a := r.connectSampling("k1", "2026-07-28", s)
	d := r.dashboard("alice")
	done := a.callAsync(context.Background(), id+"__ask_forever")
	for round := 1; round <= gateway.MaxRounds+1; round++ {
		ask := d.ask()
		if !ask.Forward {
			t.Fatalf("round %d: forwarding not offered", round)
		}
		d.forward(ask.ID)
		d.Until("the forwarded ask settled", func(v store.View) bool {
			return len(v.Snapshot.Asks) == 0 || v.Snapshot.Asks[0].ID != ask.ID
		})
	}
	res := <-done
	if !res.IsError || !strings.Contains(text(res), "more times than one call may") {
		t.Errorf("past the rounds: %s", text(res))
	}
	if got := len(s.requests()); got != gateway.MaxRounds {
		t.Errorf("the agent answered %d requests, want %d", got, gateway.MaxRounds)
	}
}
