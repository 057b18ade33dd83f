package e2e

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestRelayRestartRestoresServers(t *testing.T) {
	r := startRelay(t)
	fx := fixture.Start(t)
	p := openTab(t)
	p.login(r)
	p.addServer(fixtureName, fx.URL())
	p.waitServer(fixtureName, wire.StateReady)
	p.openServer(fixtureName)
	p.waitTools(fixture.ToolGreet, fixture.ToolFail)
	eval[any](p, setReloadMarker)

	id := p.serverID(fixtureName)
	r.stop()
	p.waitRelay(stateReconnecting)
	r.start()
	// The relay reconnects the server by itself. Wait for that on the relay's
	// side: a reconnected page shows "live" a moment before the relay's new
	// state arrives, and an op sent then would meet a server still connecting.
	s, _ := r.openSocket(t, r.sessionCookie(t))
	s.waitServerState(id, wire.StateReady)
	p.waitRelay(stateLive)

	p.waitServer(fixtureName, wire.StateReady)
	p.waitTools(fixture.ToolGreet, fixture.ToolFail)
	// The restarted relay really holds the connection: a call goes through,
	// and a change on the server reaches the page.
	p.callTool(fixture.ToolGreet, `{"name":"Grace"}`)
	p.waitResult(fixture.ToolGreet, callOK, fixture.Greeting("Grace"))
	fx.AddTool("after-restart", "still live")
	p.waitTools(fixture.ToolGreet, fixture.ToolFail, "after-restart")
	if !eval[bool](p, checkReloadMarker) {
		t.Error("the page reloaded to recover from the relay restart; it must reconnect by itself")
	}
}

func TestFixtureStopsServerGoesFailed(t *testing.T) {
	r := startRelay(t)
	fx := fixture.Start(t)
	p := openTab(t)
	p.login(r)
	p.addServer(fixtureName, fx.URL())
	p.waitServer(fixtureName, wire.StateReady)

	if err := fx.Stop(); err != nil {
		t.Fatalf("stop fixture: %v", err)
	}
	row := rowSel(fixtureName)
	p.waitServer(fixtureName, wire.StateFailed)
	p.waitJS("an error text on the failed row", `(document.querySelector(`+jsString(row+" .server-error")+`)?.textContent ?? "").trim().length > 0`)
	t.Logf("failed row says: %q", p.text(row+" .server-error"))

	if err := fx.Start(); err != nil {
		t.Fatalf("start fixture again: %v", err)
	}
	p.waitServer(fixtureName, wire.StateReady) // no Retry click: the relay retries by itself
	if n := p.count(row + " .server-error"); n != 0 {
		t.Errorf("the row is ready but still shows an error: %q", p.text(row+" .server-error"))
	}
}
