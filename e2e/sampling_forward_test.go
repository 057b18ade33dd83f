package e2e

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/samplingfixture"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// agentReply is what the agent's client answers a sampling request with.
const agentReply = "Copper threads at rest"

// forwardingAgent is an agent whose client declares sampling and answers
// it with reply, reached with a key the person made on the Agents page
// with forwarding allowed.
type forwardingAgent struct {
	cs  *mcp.ClientSession
	mu  sync.Mutex
	got []*mcp.CreateMessageWithToolsParams
}

// newForwardingAgent makes the key in p's Agents page and connects the
// agent, speaking the newest protocol version unless era names one.
func newForwardingAgent(t *testing.T, p *tab, r *relay, reply func() (*mcp.CreateMessageWithToolsResult, error), era ...string) *forwardingAgent {
	t.Helper()
	p.click(`#pages a[href="/agents"]`)
	p.waitPresent("#create-key")
	p.fill("#key-name", agentName)
	p.click("#key-forward-sampling")
	p.click("#key-submit")
	p.waitPresent("#new-key-secret")
	secret := eval[string](p, `document.getElementById("new-key-secret").value`)
	if !strings.HasPrefix(secret, store.AgentKeyPrefix) {
		t.Fatalf("the page shows %q as the key", secret)
	}
	p.click("#new-key-done")
	p.waitPresent(".sb-key .sb-key-forward")

	a := &forwardingAgent{}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
		CreateMessageWithToolsHandler: func(_ context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
			a.mu.Lock()
			a.got = append(a.got, req.Params)
			a.mu.Unlock()
			return reply()
		},
	})
	opts := &mcp.ClientSessionOptions{}
	if len(era) > 0 {
		opts.ProtocolVersion = era[0]
	}
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: r.URL() + gateway.Path, HTTPClient: &http.Client{Transport: &recorder{key: secret}},
	}, opts)
	if err != nil {
		t.Fatalf("the agent connects: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	a.cs = cs
	return a
}

// requests returns the sampling requests the agent got.
func (a *forwardingAgent) requests() []*mcp.CreateMessageWithToolsParams {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*mcp.CreateMessageWithToolsParams(nil), a.got...)
}

// call calls tool; the result arrives on the channel.
func (a *forwardingAgent) call(tool string) <-chan *mcp.CallToolResult {
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		done <- res
	}()
	return done
}

// sampledOutcome reads what the fixture's tool reports it got.
func sampledOutcome(t *testing.T, res *mcp.CallToolResult) samplingfixture.Outcome {
	t.Helper()
	text := res.Content[0].(*mcp.TextContent).Text
	o, err := samplingfixture.ParseOutcome(text)
	if err != nil || res.IsError {
		t.Fatalf("the agent's call got %q", text)
	}
	return o
}

func TestSamplingForwardedToTheAgentOnThePersonsClick(t *testing.T) {
	r := startSamplingRelay(t, nil)
	p := openSamplingPage(t, r, samplingfixture.Start(t, samplingfixture.Options{}))
	server := p.serverID(samplerName)
	a := newForwardingAgent(t, p, r, func() (*mcp.CreateMessageWithToolsResult, error) {
		return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "agent-model", Content: []mcp.Content{&mcp.TextContent{Text: agentReply}}}, nil
	})
	done := a.call(server + "__sample_text")

	card := cardSel(p.waitNewCard(wire.AskSampling, nil))
	button := card + " .sampling-forward"
	p.waitText(button, "Let "+agentName+" answer")
	t.Logf("screenshot: %s", p.screenshotAsks("sampling-forward"))
	if n := len(a.requests()); n != 0 {
		t.Fatalf("the agent got %d requests before the person's click", n)
	}
	p.click(button)
	p.waitGone(card)
	if o := sampledOutcome(t, <-done); o.Rounds != 1 || o.Text != agentReply || o.Model != "agent-model" || o.Error != "" {
		t.Errorf("the server got %+v, want the agent's reply", o)
	}
	if got := a.requests(); len(got) != 1 || got[0].SystemPrompt != samplingfixture.SystemPrompt {
		t.Errorf("the agent got %d requests, want the server's one with its system prompt", len(got))
	}
	if n := p.count(".ask-notice"); n != 0 {
		t.Errorf("the forwarded request left %d notices, as if it went elsewhere", n)
	}
}

func TestSamplingForwardRefusedByTheAgentStaysForThePerson(t *testing.T) {
	r := startSamplingRelay(t, nil)
	p := openSamplingPage(t, r, samplingfixture.Start(t, samplingfixture.Options{}))
	server := p.serverID(samplerName)
	// Before 2026-07-28 the relay hears the client's refusal; a client of
	// that version that refuses just does not retry its call (the relay
	// cancels it after a while).
	a := newForwardingAgent(t, p, r, func() (*mcp.CreateMessageWithToolsResult, error) {
		return nil, errors.New("the user declined to sample")
	}, "2025-11-25")
	done := a.call(server + "__sample_text")

	card := cardSel(p.waitNewCard(wire.AskSampling, nil))
	p.click(card + " .sampling-forward")
	p.waitText(card+" .ask-error", "the user declined to sample")
	p.fill(card+" .sampling-reply", "Wires hum softly")
	p.click(card + " .ask-accept")
	p.waitGone(card)
	if o := sampledOutcome(t, <-done); o.Text != "Wires hum softly" || o.Error != "" {
		t.Errorf("the server got %+v, want the person's reply", o)
	}
}
