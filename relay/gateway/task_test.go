package gateway_test

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/taskfixture"
	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
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
