package web

import (
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func choiceServers() []wire.Server {
	return []wire.Server{
		{ID: "s1", Name: "demo", Tools: []wire.Tool{{Name: "echo"}, {Name: "add"}}},
		{ID: "s2", Name: "files", Tools: []wire.Tool{{Name: "read"}}},
	}
}

func TestToolChoiceTakingAServerOutOfAllListsTheOthers(t *testing.T) {
	c := toolChoice{}.withServer(choiceServers(), "s1", false)
	if !slices.Equal(c.Servers, []string{"s2"}) || len(c.Tools) != 0 {
		t.Fatalf("choice = %+v", c)
	}
	if c.hasServer("s1") || !c.hasServer("s2") || c.hasTool(wire.ToolRef{Server: "s1", Tool: "echo"}) {
		t.Fatalf("choice = %+v offers the wrong tools", c)
	}
}

func TestToolChoiceTakingAToolOutOfAWholeServerKeepsItsOtherTools(t *testing.T) {
	c := toolChoice{Servers: []string{"s1"}}.withTool(choiceServers(), wire.ToolRef{Server: "s1", Tool: "echo"}, false)
	if len(c.Servers) != 0 || !slices.Equal(c.Tools, []wire.ToolRef{{Server: "s1", Tool: "add"}}) {
		t.Fatalf("choice = %+v", c)
	}
	c = c.withTool(choiceServers(), wire.ToolRef{Server: "s2", Tool: "read"}, true)
	if !c.hasTool(wire.ToolRef{Server: "s2", Tool: "read"}) || c.hasServer("s2") {
		t.Fatalf("choice = %+v", c)
	}
	if got := c.summary(choiceServers()); got != "2 tools" {
		t.Errorf("summary = %q", got)
	}
}

func TestToolChoiceServerOnReplacesItsSingleTools(t *testing.T) {
	c := toolChoice{Tools: []wire.ToolRef{{Server: "s1", Tool: "add"}}}.withServer(choiceServers(), "s1", true)
	if !slices.Equal(c.Servers, []string{"s1"}) || len(c.Tools) != 0 {
		t.Fatalf("choice = %+v", c)
	}
	if got := c.summary(choiceServers()); got != "demo" {
		t.Errorf("summary = %q", got)
	}
	if got := (toolChoice{}).summary(choiceServers()); got != "all ready servers" {
		t.Errorf("summary of all = %q", got)
	}
}
