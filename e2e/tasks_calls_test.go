package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/e2e/taskfixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

const taskServerName = "Tasks"

// openTaskServer starts a task fixture and a relay, adds the fixture in a
// page and opens its tools.
func openTaskServer(t *testing.T, cfg taskfixture.Config) (*relay, *taskfixture.Server, *tab) {
	t.Helper()
	r := startRelay(t)
	fx := taskfixture.Start(t, cfg)
	p := openTab(t)
	p.login(r)
	p.addServer(taskServerName, fx.URL)
	p.waitServer(taskServerName, wire.StateReady)
	p.openServer(taskServerName)
	p.waitTools(taskfixture.ToolResearch, taskfixture.ToolQuick, taskfixture.ToolEcho)
	return r, fx, p
}

// waitTaskText waits until the call id shows a task status containing want.
func (p *tab) waitTaskText(id, want string) {
	p.t.Helper()
	p.waitJS(fmt.Sprintf("call %s to show task %q", id, want), fmt.Sprintf(
		`(document.querySelector(%s)?.textContent ?? "").includes(%s)`, jsString(callSel(id)+" .call-task"), jsString(want)))
}

// researchCalls is the selector of the shown research calls.
var researchCalls = fmt.Sprintf(`.call-result[data-tool-name=%s]`, jsString(taskfixture.ToolResearch))

func TestTaskShowsItsStatusThenItsResult(t *testing.T) {
	_, fx, p := openTaskServer(t, taskfixture.Config{Steps: 3, Paced: true})
	p.click(toolSel(taskfixture.ToolResearch))
	p.waitPresent(`#tool-panel .tool-task`)
	id := p.startCallWith(taskfixture.ToolResearch, `{"topic":"owls"}`)
	p.waitTaskText(id, "step 1 of 3")
	fx.Advance()
	p.waitTaskText(id, "step 2 of 3")
	p.screenshot("task-running")
	if got := p.callStatus(id); got != "pending" {
		t.Errorf("while the task works the call is %q, want pending", got)
	}
	fx.Advance()
	fx.Advance()
	if text := p.waitCallText(id, callOK); !strings.Contains(text, "report on owls") {
		t.Errorf("result = %q, want the report on owls", text)
	}
	p.waitTaskText(id, "completed")
}

func TestTaskCancelledFromThePage(t *testing.T) {
	_, fx, p := openTaskServer(t, taskfixture.Config{Paced: true})
	id := p.startCallWith(taskfixture.ToolResearch, `{"topic":"bees"}`)
	task := <-fx.Created()
	p.waitTaskText(id, "step")
	p.click(callSel(id) + " .cancel-call")
	if text := p.waitCallText(id, callError); !strings.Contains(text, "Cancelled") {
		t.Errorf("cancelled call says %q", text)
	}
	// The relay tells the server (tasks/cancel) beside the page's answer,
	// not before it.
	waitFor(t, "the server's task cancelled", func() bool { return fx.Status(task) == string(wire.TaskCancelled) })
}

func TestReloadDuringATaskCallShowsItRunningThenItsResult(t *testing.T) {
	_, fx, p := openTaskServer(t, taskfixture.Config{Steps: 1, Step: 100 * time.Millisecond, Hold: true})
	id := p.startCallWith(taskfixture.ToolResearch, `{"topic":"moss"}`)
	p.waitTaskText(id, "waiting to be released")

	p.do("reload", chromedp.Reload())
	p.waitRelay(stateLive)
	p.openServer(taskServerName)
	p.waitJS("the call still running after the reload", fmt.Sprintf(
		`[...document.querySelectorAll(%s)].some(c => c.dataset.status === "pending" &&
			c.querySelector(".call-task")?.textContent.includes("waiting to be released") &&
			c.querySelector(".cancel-call"))`, jsString(researchCalls)))
	fx.Release()
	p.waitResult(taskfixture.ToolResearch, callOK, "report on moss")
}

func TestRelayRestartResumesATask(t *testing.T) {
	r, fx, p := openTaskServer(t, taskfixture.Config{Steps: 1, Step: 100 * time.Millisecond, Hold: true})
	id := p.startCallWith(taskfixture.ToolResearch, `{"topic":"ferns"}`)
	p.waitTaskText(id, "waiting to be released")

	r.stop()
	p.waitRelay(stateReconnecting)
	r.start()
	p.waitRelay(stateLive)
	p.waitServer(taskServerName, wire.StateReady)
	p.openServer(taskServerName)
	p.waitJS("the task followed again after the restart", fmt.Sprintf(
		`[...document.querySelectorAll(%s)].some(c => c.dataset.status === "pending")`, jsString(researchCalls)))
	fx.Release()
	p.waitResult(taskfixture.ToolResearch, callOK, "report on ferns")
}

func TestToolThatNeedsTasksTheServerLacksShowsWhy(t *testing.T) {
	_, _, p := openTaskServer(t, taskfixture.Config{NoTaskCapability: true})
	p.click(toolSel(taskfixture.ToolResearch))
	p.waitPresent(`#tool-panel[data-tool-name="research"] .tool-uncallable`)
	if !eval[bool](p, `document.querySelector("#tool-panel #tool-call").disabled`) {
		t.Error("the Call button of an uncallable tool is enabled")
	}
}

func TestPingShowsTheRoundTrip(t *testing.T) {
	_, _, p := openTaskServer(t, taskfixture.Config{})
	p.click("#tab-info")
	p.waitPresent("#server-capabilities")
	if caps := p.text("#server-capabilities"); !strings.Contains(caps, "tasks (tool calls") {
		t.Errorf("capabilities shown: %q, want tasks with tool calls", caps)
	}
	p.click("#server-ping")
	p.waitJS("a round-trip time", `/Round trip: [0-9.]+ ms/.test(document.querySelector("#ping-result")?.textContent ?? "")`)
	p.screenshot("info-tab")
	// On a narrow screen every tab stays in sight, none scrolled out of the strip.
	p.viewport(narrowWidth, windowHeight)
	p.waitJS("every tab in sight at 360px", `[...document.querySelectorAll("#server-detail .tabs .tab")].every(t => {
		const r = t.getBoundingClientRect(), strip = t.parentElement.getBoundingClientRect();
		return r.width > 0 && r.left >= strip.left && r.right <= strip.right; })`)
	p.viewport(windowWidth, windowHeight)
}

func TestSecondTabSeesACallAndCancelsIt(t *testing.T) {
	r, fx, a := openTaskServer(t, taskfixture.Config{Paced: true})
	id := a.startCallWith(taskfixture.ToolResearch, `{"topic":"lichen"}`)
	task := <-fx.Created()
	a.waitTaskText(id, "step")

	b := openTab(t)
	b.login(r)
	b.waitServer(taskServerName, wire.StateReady)
	b.openServer(taskServerName)
	pending := fmt.Sprintf(`[...document.querySelectorAll(%s)].find(c => c.dataset.status === "pending" &&
		(c.querySelector(".call-task")?.textContent ?? "").includes("step"))`, jsString(researchCalls))
	b.waitJS("the other tab's call, running with its task status", pending+` !== undefined`)
	other := eval[string](b, pending+`.dataset.callId`)
	b.click(callSel(other) + " .cancel-call")

	if text := a.waitCallText(id, callError); !strings.Contains(text, "Cancelled") {
		t.Errorf("the first tab says %q", text)
	}
	if text := b.waitCallText(other, callError); !strings.Contains(text, "Cancelled") {
		t.Errorf("the second tab says %q", text)
	}
	// The relay tells the server (tasks/cancel) beside the page's answer,
	// not before it.
	waitFor(t, "the server's task cancelled", func() bool { return fx.Status(task) == string(wire.TaskCancelled) })
}
