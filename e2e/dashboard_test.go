package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// States of #relay-status.
const (
	stateLive         = "live"
	stateReconnecting = "reconnecting"
	stateSignedOut    = "signed-out"
)

// Results of a tool call, as .call-result data-status says.
const (
	callOK    = "ok"
	callError = "error"
)

// rowSel selects the server row of the server called name.
func rowSel(name string) string {
	return fmt.Sprintf(`.server-row[data-server-name=%s]`, jsString(name))
}

// toolSel selects the tool item called name in the server detail.
func toolSel(name string) string {
	return fmt.Sprintf(`#server-detail .tool-item[data-tool-name=%s]`, jsString(name))
}

// waitRelay waits until the header shows the relay connection in state.
func (p *tab) waitRelay(state string) {
	p.t.Helper()
	p.waitAttr("#relay-status", "data-state", state)
}

// addServer fills the add form and submits it; it returns when the row shows.
func (p *tab) addServer(name, url string) {
	p.t.Helper()
	p.fill("#add-name", name)
	p.fill("#add-url", url)
	p.click("#add-submit")
	p.waitPresent(rowSel(name))
}

// waitServer waits until the row of the server called name is in state.
func (p *tab) waitServer(name string, state wire.ServerState) {
	p.t.Helper()
	p.waitAttr(rowSel(name), "data-state", string(state))
}

// serverID returns the id of the server called name.
func (p *tab) serverID(name string) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`document.querySelector(%s)?.dataset.serverId ?? ""`, jsString(rowSel(name))))
}

// openServer shows the server called name in the detail, on its tools tab.
func (p *tab) openServer(name string) {
	p.t.Helper()
	id := p.serverID(name)
	p.click(rowSel(name) + " .server-name")
	p.waitAttr("#server-detail", "data-server-id", id)
	p.click("#tab-tools")
}

// waitTools waits until the detail lists exactly the tools named, in any order.
func (p *tab) waitTools(names ...string) {
	p.t.Helper()
	want := slices.Sorted(slices.Values(names))
	p.waitJS("tools "+strings.Join(want, ", "), fmt.Sprintf(
		`JSON.stringify([...document.querySelectorAll("#server-detail .tool-item")].map(e => e.dataset.toolName).sort()) === %s`,
		jsString(mustJSON(want))))
}

// callTool opens the tool called name, types args as JSON and calls it,
// sending arguments that do not fit the schema anyway and confirming a
// destructive tool, as the old raw-JSON panel did.
func (p *tab) callTool(name, args string) {
	p.t.Helper()
	panel := p.openTool(name)
	p.useJSON(panel)
	p.fill(panel+" #tool-args", args)
	p.pressSend(panel, panel+" #tool-call")
	for range 2 {
		switch eval[string](p, fmt.Sprintf(`document.querySelector(%s).dataset.stage`, jsString(panel))) {
		case "invalid":
			p.pressSend(panel, panel+" #tool-send-anyway")
		case "confirm":
			p.pressSend(panel, panel+" #tool-confirm-run")
		}
	}
}

// openTool opens the panel of the tool called name and returns its
// selector, once the panel took the focus (which would otherwise move
// while a test types).
func (p *tab) openTool(name string) string {
	p.t.Helper()
	p.click(toolSel(name))
	// The panel of another tool may still show until the page re-renders.
	panel := toolPanelSel(name)
	p.waitPresent(panel + " #tool-call")
	p.waitJS("the focus in the panel of "+name, fmt.Sprintf(`document.querySelector(%s).contains(document.activeElement)`, jsString(panel)))
	return panel
}

// toolPanelSel selects the open panel of the tool called name.
func toolPanelSel(name string) string {
	return fmt.Sprintf(`#tool-panel[data-tool-name=%s]`, jsString(name))
}

// useJSON switches the panel to raw JSON arguments, when it offers a form.
func (p *tab) useJSON(panel string) {
	p.t.Helper()
	if eval[bool](p, fmt.Sprintf(`!!document.querySelector(%s)`, jsString(panel+" #tool-form"))) {
		p.click(panel + " #tool-mode-json")
	}
	p.waitPresent(panel + " #tool-args")
}

// pressSend clicks a button of the panel that tries to send, and waits
// until the panel took the click.
func (p *tab) pressSend(panel, button string) {
	p.t.Helper()
	attr := fmt.Sprintf(`Number(document.querySelector(%s)?.dataset.attempts ?? 0)`, jsString(panel))
	before := eval[int](p, attr)
	p.click(button)
	p.waitJS("the panel to take the click on "+button, fmt.Sprintf(`%s > %d`, attr, before))
}

// waitResult waits for a finished call of the tool called name with status
// whose text (.result-text for ok, .result-error for error) contains want.
func (p *tab) waitResult(name, status, want string) {
	p.t.Helper()
	part := ".result-text"
	if status == callError {
		part = ".result-error"
	}
	p.waitJS(fmt.Sprintf("a %s result of %s containing %q", status, name, want), fmt.Sprintf(
		`[...document.querySelectorAll(%s)].some(r => r.dataset.status === %s &&
			[...r.querySelectorAll(%s)].some(e => e.textContent.includes(%s)))`,
		jsString(fmt.Sprintf(`.call-result[data-tool-name=%s]`, jsString(name))),
		jsString(status), jsString(part), jsString(want)))
}

// mustJSON marshals v, which the tests build from plain values.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("marshal %T: %v", v, err))
	}
	return string(b)
}

// serversRenderedMark is the performance mark the dashboard makes once the
// first snapshot's server list is on screen.
const serversRenderedMark = "switchboard:servers-rendered"

// waitServersRendered waits for the dashboard's first full render.
func (p *tab) waitServersRendered() {
	p.t.Helper()
	p.waitJS("the first server list", fmt.Sprintf(`performance.getEntriesByName(%s, "mark").length > 0`, jsString(serversRenderedMark)))
}
