package e2e

import (
	"context"
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

func TestSamplingForwardedToTheAgentOnThePersonsClick(t *testing.T) {
	r := startSamplingRelay(t, nil)
	fx := samplingfixture.Start(t, samplingfixture.Options{})
	p := openSamplingPage(t, r, fx)
	server := p.serverID(samplerName)

	// The person makes a key that lets them hand sampling to the agent.
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

	// The agent's client declares sampling and answers it.
	var mu sync.Mutex
	var got []*mcp.CreateMessageWithToolsParams
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
		CreateMessageWithToolsHandler: func(_ context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
			mu.Lock()
			got = append(got, req.Params)
			mu.Unlock()
			return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "agent-model", Content: []mcp.Content{&mcp.TextContent{Text: agentReply}}}, nil
		},
	})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: r.URL() + gateway.Path, HTTPClient: &http.Client{Transport: &recorder{key: secret}},
	}, nil)
	if err != nil {
		t.Fatalf("the agent connects: %v", err)
	}
	defer cs.Close()
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: server + "__sample_text", Arguments: map[string]any{}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		done <- res
	}()

	card := cardSel(p.waitNewCard(wire.AskSampling, nil))
	button := card + " .sampling-forward"
	p.waitText(button, "Let "+agentName+" answer")
	t.Logf("screenshot: %s", p.screenshotAsks("sampling-forward"))
	mu.Lock()
	early := len(got)
	mu.Unlock()
	if early != 0 {
		t.Fatalf("the agent got %d requests before the person's click", early)
	}
	p.click(button)
	p.waitGone(card)
	res := <-done
	text := res.Content[0].(*mcp.TextContent).Text
	o, err := samplingfixture.ParseOutcome(text)
	if err != nil || res.IsError {
		t.Fatalf("the agent's call got %q", text)
	}
	if o.Rounds != 1 || o.Text != agentReply || o.Model != "agent-model" || o.Error != "" {
		t.Errorf("the server got %+v, want the agent's reply", o)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].SystemPrompt != samplingfixture.SystemPrompt {
		t.Errorf("the agent got %d requests, want the server's one with its system prompt", len(got))
	}
}
