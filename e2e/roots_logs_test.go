package e2e

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/switchboard-mcp/switchboard/e2e/rootsfixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// rootsServer is the name the tests give the roots fixture.
const rootsServer = "roots-fixture"

// rootSel selects the root of uri in the header's roots editor.
func rootSel(uri string) string {
	return fmt.Sprintf(`#roots-list .root-item[data-uri=%s]`, jsString(uri))
}

// addRoot opens the roots editor if needed and adds a root.
func (p *tab) addRoot(typed, name string) {
	p.t.Helper()
	if !eval[bool](p, `document.querySelector("#roots").open`) {
		p.click("#roots-toggle")
	}
	p.fill("#roots-uri", typed)
	p.fill("#roots-name", name)
	p.click("#roots-submit")
}

// logLevels lists the levels of the log entries whose text contains text.
func (p *tab) logLevels(text string) []string {
	p.t.Helper()
	return eval[[]string](p, fmt.Sprintf(`[...document.querySelectorAll("#log-list .log-entry")]
		.filter(e => e.querySelector(".log-data").textContent.includes(%s)).map(e => e.dataset.level)`, jsString(text)))
}

// waitLogLine waits for the entry of level whose text contains text.
func (p *tab) waitLogLine(level wire.LogLevel, text string) {
	p.t.Helper()
	p.waitJS(fmt.Sprintf("a %s log line with %q", level, text), fmt.Sprintf(`[...document.querySelectorAll("#log-list .log-entry")]
		.some(e => e.dataset.level === %s && e.querySelector(".log-data").textContent.includes(%s))`, jsString(string(level)), jsString(text)))
}

func TestRootsEditedInTheDashboardReachTheServer(t *testing.T) {
	r := startRelay(t)
	fx := rootsfixture.Start(t, rootsfixture.Options{})
	p := openTab(t)
	p.login(r)
	other := openTab(t)
	other.login(r)
	p.addServer(rootsServer, fx.URL())
	p.waitServer(rootsServer, wire.StateReady)
	p.openServer(rootsServer)

	p.addRoot("/home/ada/project", "Project")
	const uri = "file:///home/ada/project"
	p.waitPresent(rootSel(uri))
	if got := eval[string](p, `document.querySelector("#roots-uri").value`); got != "" {
		t.Errorf("the root's input still holds %q after it was added", got)
	}
	other.waitPresent(rootSel(uri)) // every dashboard sees the edit live
	fx.Await(t, waitTimeout, "the roots list change", func() bool { return fx.RootsChanged() >= 1 })
	p.callTool("roots", `{}`)
	p.waitResult("roots", callOK, uri)

	p.addRoot("https://example.com/share", "")
	p.waitText("#roots-error", "file://")
	if got := eval[string](p, `document.querySelector("#roots-uri").value`); got != "https://example.com/share" {
		t.Errorf("a refused root's input holds %q; the typed text must stay", got)
	}
	if n := p.count("#roots-list .root-item"); n != 1 {
		t.Errorf("%d roots after a refused edit; want 1", n)
	}
	p.screenshot("roots-editor")
	// On a narrow screen the panel still fits, though its toggle sits mid-header.
	p.viewport(narrowWidth, windowHeight)
	p.waitJS("the roots panel inside a narrow screen", `(() => { const r = document.querySelector("#roots .roots-panel").getBoundingClientRect();
		return r.width > 0 && r.left >= 0 && r.right <= document.documentElement.clientWidth; })()`)
	p.screenshot("roots-editor-narrow")
	p.viewport(windowWidth, windowHeight)
	p.do("press Escape", chromedp.KeyEvent(kb.Escape)) // closes the editor, which lies over the detail
	p.waitJS("the roots editor closed, focus on its toggle",
		`!document.querySelector("#roots").open && document.activeElement?.id === "roots-toggle"`)

	p.click("#tab-info")
	before := fx.RootsChanged()
	p.click("#roots-excluded")
	fx.Await(t, waitTimeout, "the change that hides the roots", func() bool { return fx.RootsChanged() > before })
	p.click("#tab-tools")
	p.callTool("roots", `{}`)
	p.waitResult("roots", callOK, "[]")

	r.stop()
	p.waitRelay(stateReconnecting)
	r.start()
	p.waitRelay(stateLive)
	fresh := openTab(t)
	fresh.login(r)
	fresh.waitPresent(rootSel(uri))
	fresh.waitServer(rootsServer, wire.StateReady)
	fresh.openServer(rootsServer)
	fresh.click("#tab-info")
	fresh.waitJS("the exclusion kept across the restart", `document.querySelector("#roots-excluded")?.checked === true`)
}

func TestLogsArriveAtTheChosenLevelAndStopBelowIt(t *testing.T) {
	r := startRelay(t)
	fx := rootsfixture.Start(t, rootsfixture.Options{})
	p := openTab(t)
	p.login(r)
	p.addServer(rootsServer, fx.URL())
	p.waitServer(rootsServer, wire.StateReady)
	p.openServer(rootsServer)

	p.click("#tab-logs")
	p.waitPresent("#log-level")
	p.chooseOption("#log-level", "log level", string(wire.LevelNotice))
	fx.Await(t, waitTimeout, "logging/setLevel notice", func() bool { return slices.Equal(fx.Levels(), []string{"notice"}) })
	p.click("#tab-tools")
	p.callTool("log", `{"message":"first"}`)
	p.waitResult("log", callOK, "logged")
	p.click("#tab-logs")
	p.waitLogLine(wire.LevelEmergency, "first at emergency")
	if got, want := p.logLevels("first"), []string{"notice", "warning", "error", "critical", "alert", "emergency"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("levels shown = %v; want %v", got, want)
	}
	// The notice carries an object: a tree whose keys show as text.
	p.waitText(`#log-list .log-entry[data-level="notice"] .json-tree`, "detail")

	p.chooseOption("#log-level", "log level", string(wire.LevelError))
	fx.Await(t, waitTimeout, "logging/setLevel error", func() bool { return slices.Equal(fx.Levels(), []string{"notice", "error"}) })
	p.click("#tab-tools")
	p.callTool("log", `{"message":"second"}`)
	p.click("#tab-logs")
	p.waitLogLine(wire.LevelEmergency, "second at emergency")
	if got, want := p.logLevels("second"), []string{"error", "critical", "alert", "emergency"}; !reflect.DeepEqual(got, want) {
		t.Errorf("levels shown after raising the level = %v; want %v", got, want)
	}
	p.screenshot("logs-pane")

	p.chooseOption("#log-filter", "log filter", string(wire.LevelCritical))
	p.waitJS("only critical and above shown", `[...document.querySelectorAll("#log-list .log-entry")]
		.every(e => ["critical", "alert", "emergency"].includes(e.dataset.level))`)
	p.waitText("#logs-count", "shown")

	p.click("#logs-clear")
	p.waitJS("the logs cleared", `document.querySelectorAll("#log-list .log-entry").length === 0`)
}

func TestActivityShowsAListChange(t *testing.T) {
	r := startRelay(t)
	fx := rootsfixture.Start(t, rootsfixture.Options{})
	p := openTab(t)
	p.login(r)
	p.addServer(rootsServer, fx.URL())
	p.waitServer(rootsServer, wire.StateReady)
	p.openServer(rootsServer)
	p.callTool("grow", `{}`)
	p.waitTools("grow", "log", "roots", "grown-1")
	p.click("#tab-activity")
	p.waitPresent(`#activity-list .activity-entry[data-kind="tools_changed"]`)
	p.waitText(`#activity-list .activity-entry[data-kind="tools_changed"] .activity-kind`, "Tools changed")
}
