package gateway_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/taskfixture"
	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// An agent calls a tool that the server runs only as an MCP task like any
// other tool: the relay creates the task, follows it and hands back its
// result.
func TestAgentCallsAToolThatRunsOnlyAsATask(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			fx := taskfixture.Start(t, taskfixture.Config{Steps: 2, Step: 20 * time.Millisecond})
			r := newRelay(t, broker.Config{})
			id := r.add("alice", "tasks", fx.URL)
			r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
			a := r.connect("k1", gateway.Path, era)
			got, isError := a.call(t, id+"__"+taskfixture.ToolResearch, map[string]any{"topic": "owls"})
			if isError || !strings.Contains(got, "owls") {
				t.Fatalf("the task tool answered %q (error %v), want a report on owls", got, isError)
			}
			select {
			case <-fx.Created():
			default:
				t.Error("the server created no task")
			}
		})
	}
}

// callResearch calls the task fixture's research tool; the result arrives on the channel.
func (a *agent) callResearch(ctx context.Context, tool string) <-chan *mcp.CallToolResult {
	return a.callAsyncWith(ctx, tool, map[string]any{"topic": "owls"})
}

// awaitWaiting waits for the progress notification that tells the agent
// it waits for a person.
func (a *agent) awaitWaiting(t *testing.T) {
	t.Helper()
	deadline := time.After(waitFor)
	for {
		select {
		case p := <-a.progress:
			if p.Message == "waiting for a person in Switchboard" {
				return
			}
		case <-deadline:
			t.Fatal("the agent heard nothing while a person was asked")
		}
	}
}

// A question a server asks while it runs an agent's call as a task (the
// reference server's simulate-research-query, ambiguous) is the agent's
// question like any other: labelled with the agent's call, the agent hears
// that it waits for a person, the activity says a person was asked, and
// cancelling the call withdraws the question.
func TestAgentsQuestionDuringATaskFollowsTheCall(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			fx := taskfixture.Start(t, taskfixture.Config{Steps: 2, Step: 20 * time.Millisecond, Ask: true})
			r := newRelay(t, broker.Config{})
			id := r.add("alice", "tasks", fx.URL)
			r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
			a := r.connect("k1", gateway.Path, era)
			d := r.dashboard("alice")

			done := a.callResearch(context.Background(), id+"__"+taskfixture.ToolResearch)
			ask := d.ask()
			if ask.Agent != "Claude" || ask.Tool != taskfixture.ToolResearch || ask.Call == "" || ask.Message != taskfixture.Clarification {
				t.Errorf("the task's question is labelled agent %q, tool %q, call %q (message %q)", ask.Agent, ask.Tool, ask.Call, ask.Message)
			}
			a.awaitWaiting(t)
			d.answer(ask.ID, wire.ActionAccept, map[string]any{"interpretation": "birds"})
			if res := <-done; res.IsError || !strings.Contains(text(res), "owls (accept: birds)") {
				t.Fatalf("the task answered %q (error %v)", text(res), res.IsError)
			}
			if recs := r.recs.all(); len(recs) != 1 || !recs[0].Asked {
				t.Errorf("the activity of the call: %+v, want one call that asked a person", recs)
			}

			d.settled()
			ctx, cancel := context.WithCancel(context.Background())
			done = a.callResearch(ctx, id+"__"+taskfixture.ToolResearch)
			d.ask()
			cancel()
			<-done
			d.Until("the question withdrawn with its call", noAsk)
		})
	}
}
