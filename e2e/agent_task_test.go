package e2e

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// researchTool is the reference server's tool that runs only as an MCP
// task and, asked an ambiguous topic, asks a person to clarify it on the
// stream of its tasks/result.
const researchTool = "simulate-research-query"

// The reference server's research, ambiguous, asks its question while it
// runs as a task. Through /mcp the question is the agent's like any other:
// its card names the agent and the tool, the agent hears it waits for a
// person, the activity says a person was asked, and cancelling the agent's
// call takes the card away.
func TestAgentsQuestionDuringAReferenceServerTask(t *testing.T) {
	if _, err := os.Stat(filepath.Join(everythingDir, everythingEntry)); err != nil {
		t.Skipf("the everything server is not installed (make everything-server): %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("Node.js is needed for the everything server: %v", err)
	}
	base := startEverything(t, "streamableHttp")
	r := startRelay(t)
	p := openTab(t)
	p.login(r)
	p.addServer("everything", base+"/mcp")
	p.waitServer("everything", wire.StateReady)
	server := p.serverID("everything")
	a := connectResearcher(t, r)

	done := a.research(context.Background(), server)
	card := p.waitNewCard(wire.AskForm, nil)
	if caller := p.text(cardSel(card) + " .ask-caller"); !strings.Contains(caller, agentName) || !strings.Contains(caller, researchTool) {
		t.Errorf("the card says %q: it should name the agent and the tool", caller)
	}
	a.awaitWaiting(t)
	p.fillForm(card, map[string]any{"interpretation": "snake"})
	p.click(cardSel(card) + " .ask-accept")
	p.waitGone(cardSel(card))
	if res := <-done; res.IsError || !strings.Contains(textOf(res), "Clarification**: snake") {
		t.Fatalf("the agent got %q (error %v), want the report on the snake", textOf(res), res.IsError)
	}
	p.click(`#pages a[href="/activity"]`)
	p.waitPresent(`#agent-calls .sb-call[data-outcome=ok]`)
	if asked := p.text(`#agent-calls .sb-call[data-outcome=ok] td[data-label="Asked you"]`); asked != "yes" {
		t.Errorf("the activity says Asked you: %q, want yes", asked)
	}

	p.click(`#pages a[href="/"]`)
	ctx, cancel := context.WithCancel(context.Background())
	done = a.research(ctx, server)
	card = p.waitNewCard(wire.AskForm, []string{card})
	cancel()
	<-done
	p.waitGone(cardSel(card))
}

// researcher is an agent that listens to the progress of its calls.
type researcher struct {
	cs       *mcp.ClientSession
	progress chan string
}

// connectResearcher connects an agent with a new key to r's /mcp.
func connectResearcher(t *testing.T, r *relay) *researcher {
	t.Helper()
	a := &researcher{progress: make(chan string, 256)}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case a.progress <- req.Params.Message:
			default:
			}
		},
	})
	rec := &recorder{key: newAgentKey(t, r)}
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: r.URL() + gateway.Path, HTTPClient: &http.Client{Transport: rec},
	}, nil)
	if err != nil {
		t.Fatalf("the agent connects: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	a.cs = cs
	return a
}

// research asks the server's research tool about python, an ambiguous
// topic, with a progress token; the result (an error as an error result)
// arrives on the channel.
func (a *researcher) research(ctx context.Context, server string) <-chan *mcp.CallToolResult {
	out := make(chan *mcp.CallToolResult, 1)
	go func() {
		p := &mcp.CallToolParams{Name: server + "__" + researchTool, Arguments: map[string]any{"topic": "python", "ambiguous": true}}
		p.SetProgressToken("research")
		res, err := a.cs.CallTool(ctx, p)
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		out <- res
	}()
	return out
}

// awaitWaiting waits for the progress that tells the agent it waits for a
// person.
func (a *researcher) awaitWaiting(t *testing.T) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m := <-a.progress:
			if m == "waiting for a person in Switchboard" {
				return
			}
		case <-deadline:
			t.Fatal("the agent heard nothing while a person was asked")
		}
	}
}

// textOf is the text of a result's first content.
func textOf(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}
