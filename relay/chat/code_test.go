package chat_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestCodeModeOffersSearchAndExecuteAndAsksOnceForAProgram(t *testing.T) {
	r := newRelay(t, 0)
	c := r.newChat()[0]
	on := true
	r.must(wire.OpUpdateChat, wire.UpdateChatArgs{Chat: c.ID, CodeMode: &on}, nil)
	program := `const a = await tools.echo({text: "one"});
		const b = await tools.write({text: "two"});
		return [a, b];`
	args, _ := json.Marshal(map[string]string{"code": program})
	r.model.Queue(
		modelfixture.Calls(modelfixture.ToolCall{Name: "search", Arguments: `{"query":"echo"}`}),
		modelfixture.Calls(modelfixture.ToolCall{Name: "execute", Arguments: string(args)}),
		modelfixture.Text("Done."))
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Echo one and write two."}, nil)

	// write asks by default: the program asks once, showing itself.
	card := r.card(c.ID, wire.ToolApproval)
	if card.Tool != "execute" || card.Server != "" || !strings.Contains(string(card.Arguments), "tools.write") {
		t.Fatalf("the approval card: %+v", card)
	}
	r.must(wire.OpApproveTool, wire.ApproveToolArgs{Chat: c.ID, Call: card.ID, Approval: wire.ApproveRun}, nil)
	turn := r.ended(c.ID)
	if turn.Status != wire.TurnDone || len(turn.Parts) != 3 {
		t.Fatalf("turn %s: %+v", turn.Status, turn.Parts)
	}
	search, execute := turn.Parts[0].Tool, turn.Parts[1].Tool
	if search.State != wire.ToolDone || !strings.Contains(search.Result.Content[0].Text, "echo(args: { text: string }): Promise<string | ToolContent[]>;") {
		t.Errorf("search card: %+v", search)
	}
	if execute.State != wire.ToolDone || execute.Result.IsError || !strings.Contains(execute.Result.Content[0].Text, `"wrote two"`) {
		t.Errorf("execute card: %+v", execute.Result)
	}
	reqs := r.model.Await(t, 3)
	var offered []string
	for _, tool := range reqs[0].Tools {
		offered = append(offered, tool.Name)
	}
	if !slices.Equal(offered, []string{"search", "execute"}) {
		t.Errorf("the model was offered %q, want search and execute only", offered)
	}
	if last := reqs[2].Messages[len(reqs[2].Messages)-1]; !strings.Contains(string(last.Raw), "wrote two") {
		t.Errorf("the model did not get the program's result: %s", last.Raw)
	}
}
