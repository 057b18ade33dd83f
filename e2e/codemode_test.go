package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/chatfixture"
	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// TestCodeModeProgramAsksThePersonInTheDashboard: an agent on /mcp/code
// runs a program whose tool asks a form question; the person answers the
// card in the dashboard while the program waits; the agent gets the
// program's output and nothing of the answer; Agent activity shows the
// program and its call, marked as made by code.
func TestCodeModeProgramAsksThePersonInTheDashboard(t *testing.T) {
	r := startRelay(t)
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	p := openTab(t)
	p.login(r)
	p.addServer(askerName, fx.URL())
	p.waitServer(askerName, wire.StateReady)

	cs, rec := connectAgent(t, r, gateway.CodePath)

	form := elicitfixture.Forms[0]
	found, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": form.Name}})
	if err != nil || found.IsError {
		t.Fatalf("search: %v %v", err, found)
	}
	if got := found.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, "declare const asker: {") || !strings.Contains(got, "form_"+form.Name+"(args") {
		t.Errorf("search for %q declares:\n%s", form.Name, got)
	}
	program := `const out = await asker["form_` + form.Name + `"]();
console.log("the person answered");
return {answered: out.length > 0};`
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": program}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		done <- res
	}()
	id := p.waitNewCard(wire.AskForm, nil)
	if caller := p.text(cardSel(id) + " .ask-caller"); !strings.Contains(caller, agentName) || !strings.Contains(caller, "form_"+form.Name) {
		t.Errorf("the card says %q: it should name the agent and the tool", caller)
	}
	p.fillForm(id, form.Example)
	p.click(cardSel(id) + " .ask-accept")
	p.waitGone(cardSel(id))
	res := <-done
	got := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || !strings.Contains(got, `"answered": true`) || !strings.Contains(got, "the person answered") {
		t.Fatalf("the agent got %q", got)
	}
	rec.mu.Lock()
	heard := rec.got.String()
	rec.mu.Unlock()
	for _, v := range form.Example {
		if s, ok := v.(string); ok && strings.Contains(heard, s) {
			t.Errorf("the agent received the person's answer %q", s)
		}
	}

	p.click(`#pages a[href="/activity"]`)
	p.waitPresent(`#agent-calls .sb-call[data-outcome=ok] .sb-call-by-code`)
	p.waitText(`#agent-calls .sb-call-program pre`, `asker["form_`+form.Name+`"]()`)
	p.screenshot("codemode-activity")
}

// TestChatCodeModeRunsAProgram: a conversation with Code mode on offers
// its model search and execute only; the program the model writes could
// reach a tool that asks first, so its card asks once, showing the
// program; once run, its result goes back to the model and onto the card.
func TestChatCodeModeRunsAProgram(t *testing.T) {
	w := startChatWorld(t)
	p := w.openChatPage(t)
	const final = "Paris is sunny."
	var offered []string
	sc := w.script("code", func(n int, req *modelfixture.Request) modelfixture.Reply {
		if n == 1 {
			for _, tl := range req.Tools {
				offered = append(offered, tl.Name)
			}
			return modelfixture.Calls(modelfixture.ToolCall{Name: "execute",
				Arguments: `{"code":"const w = await desk.city_weather({city: \"Paris\"});\nreturn {weather: w};"}`})
		}
		return modelfixture.Text(final)
	})
	p.click(".chat-new")
	p.waitPresent(".chat-start")
	p.pickModel(modelAlpha)
	p.click("#chat-code-mode")
	chat, turn := p.sendNew("What is the weather in Paris? " + sc.tag)

	calls := p.waitToolCalls(chat, turn, 1)
	card := toolCardSel(turnSel(chat, turn), calls[0])
	p.waitText(card+" .chat-tool-server", "code mode")
	p.waitToolState(chat, turn, calls[0], wire.ToolApproval)
	if got := p.text(card + " .chat-tool-args"); !strings.Contains(got, "await desk.city_weather({city: \"Paris\"});\nreturn") {
		t.Errorf("the card shows the program as %q", got)
	}
	p.click(card + " .chat-run")
	p.waitToolState(chat, turn, calls[0], wire.ToolDone)
	p.waitText(card+" .chat-tool-result", chatfixture.Weather("Paris"))
	p.waitStatus(chat, turn, wire.TurnDone)
	if got := p.answerText(chat, turn); !strings.Contains(got, final) {
		t.Errorf("the answer shows %q, want %q", got, final)
	}
	reqs := sc.await(t, 2)
	if strings.Join(offered, ",") != "search,execute" {
		t.Errorf("the model was offered %q, want search and execute only", offered)
	}
	if results := toolResults(reqs[1]); len(results) != 1 || !strings.Contains(results[0].Content, chatfixture.Weather("Paris")) {
		t.Errorf("the model got the tool results %+v", results)
	}
	if !eval[bool](p.tab, `document.querySelector("#chat-code-mode").checked`) {
		t.Error("the conversation does not show Code mode on")
	}
	p.screenshot("chat-code-mode")
}
