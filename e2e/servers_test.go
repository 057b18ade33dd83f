package e2e

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// fixtureName is the name the tests give the fixture server on the dashboard.
const fixtureName = "fixture"

// reloadMarker is set on window before a change; a page that reloaded loses it.
const (
	setReloadMarker   = `window.__marker = 1`
	checkReloadMarker = `window.__marker === 1`
)

func TestAddServerCallToolAndFollowToolListChanges(t *testing.T) {
	r := startRelay(t)
	fx := fixture.Start(t)
	p := openTab(t)
	p.login(r)

	p.addServer(fixtureName, fx.URL())
	p.waitServer(fixtureName, wire.StateReady)
	p.waitText(rowSel(fixtureName)+" .count-tools", "2")
	p.openServer(fixtureName)
	p.waitTools(fixture.ToolGreet, fixture.ToolFail)

	p.callTool(fixture.ToolGreet, `{"name":"Ada"}`)
	p.waitResult(fixture.ToolGreet, callOK, fixture.Greeting("Ada"))
	p.screenshot("dashboard-tool-result")

	p.callTool(fixture.ToolFail, `{}`)
	p.waitResult(fixture.ToolFail, callError, fixture.FailMessage)

	eval[any](p, setReloadMarker)
	fx.AddTool("shout", "HEY")
	p.waitTools(fixture.ToolGreet, fixture.ToolFail, "shout")
	p.waitText(rowSel(fixtureName)+" .count-tools", "3")
	fx.RemoveTool(fixture.ToolFail)
	p.waitTools(fixture.ToolGreet, "shout")
	if !eval[bool](p, checkReloadMarker) {
		t.Error("the page reloaded to show the tool list change; it must update in place")
	}
	p.callTool("shout", `{}`)
	p.waitResult("shout", callOK, "HEY")
}

func TestRemoveServerAsksForConfirmation(t *testing.T) {
	r := startRelay(t)
	fx := fixture.Start(t)
	p := openTab(t)
	p.login(r)
	p.addServer(fixtureName, fx.URL())
	p.waitServer(fixtureName, wire.StateReady)

	row := rowSel(fixtureName)
	p.click(row + " .remove-server")
	p.waitPresent(row + " .confirm-remove")
	if p.count(row) != 1 {
		t.Fatal("the row went away before the removal was confirmed")
	}
	p.click(row + " .confirm-remove")
	p.waitGone(row)

	r.stop()
	p.waitRelay(stateReconnecting)
	r.start()
	p.waitRelay(stateLive)
	// A server added now arrives after the relay's fresh state, so once its
	// row shows, the page has applied everything the restarted relay said.
	p.addServer("after-restart", fx.URL())
	if n := p.count(row); n != 0 {
		t.Errorf("after a relay restart the removed server is back (%d rows)", n)
	}
	fresh := openTab(t)
	fresh.login(r)
	fresh.waitServersRendered()
	if n := fresh.count(row); n != 0 {
		t.Errorf("a fresh dashboard after the restart shows the removed server (%d rows)", n)
	}
}
