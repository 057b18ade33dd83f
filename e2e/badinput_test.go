package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// unreachableURL is a well-formed loopback URL where nothing listens.
const unreachableURL = "http://127.0.0.1:1/mcp"

// oversizedFrame is a frame twice the relay's inbound limit.
const oversizedFrame = 2 * wire.MaxInboundFrame

func TestBadInputIsRefusedClearly(t *testing.T) {
	r := startRelay(t)
	fx := fixture.Start(t)

	t.Run("form", func(t *testing.T) { badURLsInTheAddForm(t, r) })
	t.Run("malformed frame", func(t *testing.T) { malformedFrameIsAnsweredAndTheSocketGoesOn(t, r, fx) })
	t.Run("oversized frame", func(t *testing.T) { oversizedFrameClosesOnlyItsSocket(t, r, fx) })
}

// badURLsInTheAddForm adds servers by URLs that are not fit or that lead
// nowhere: the form says why and adds nothing, or the server's row does.
func badURLsInTheAddForm(t *testing.T, r *relay) {
	p := openTab(t)
	p.login(r)
	for _, tc := range []struct{ name, url string }{
		{"not a URL", "not a url"},
		{"not http", "ftp://x"},
	} {
		p.navigate(r.URL() + "/") // a fresh form, with no error from the case before
		p.waitServersRendered()
		p.fill("#add-name", "bad")
		p.fill("#add-url", tc.url)
		p.click("#add-submit")
		p.waitJS("an error in #add-error for "+tc.name,
			`(document.querySelector("#add-error")?.textContent ?? "").trim().length > 0`)
		t.Logf("%s (%s): #add-error says %q", tc.name, tc.url, strings.TrimSpace(p.text("#add-error")))
		if n := p.count(".server-row"); n != 0 {
			t.Errorf("%s (%s) added a server (%d rows)", tc.name, tc.url, n)
		}
	}

	p.addServer("nowhere", unreachableURL)
	p.waitServer("nowhere", wire.StateFailed)
	p.waitJS("an error text on the unreachable server's row",
		`(document.querySelector(`+jsString(rowSel("nowhere")+" .server-error")+`)?.textContent ?? "").trim().length > 0`)
	t.Logf("unreachable server row says %q", p.text(rowSel("nowhere")+" .server-error"))
}

// malformedFrameIsAnsweredAndTheSocketGoesOn sends a frame that is not
// JSON: an error frame answers it, and the socket still takes ops.
func malformedFrameIsAnsweredAndTheSocketGoesOn(t *testing.T, r *relay, fx *fixture.Server) {
	s, _ := r.openSocket(t, r.sessionCookie(t))
	s.sendRaw([]byte(`{"v":1,"type":`))
	f := s.next("an error frame", func(f wire.Frame) bool { return f.Type == wire.TypeError })
	if f.Error == nil || f.Error.Code != wire.CodeBadFrame {
		t.Errorf("malformed frame answered with %+v, want code %s", f.Error, wire.CodeBadFrame)
	}
	if f.ID != "" {
		t.Errorf("the bad_frame error carries op id %q, want none", f.ID)
	}
	if id := s.addServer(fixtureName, fx.URL()); id == "" {
		t.Error("after a malformed frame the socket answered the add op without a server id")
	}
}

// oversizedFrameClosesOnlyItsSocket sends a frame over the inbound limit:
// its socket is closed as too big, and another dashboard of the same user
// still gets changes.
func oversizedFrameClosesOnlyItsSocket(t *testing.T, r *relay, fx *fixture.Server) {
	cookie := r.sessionCookie(t)
	big, _ := r.openSocket(t, cookie)
	other, snap := r.openSocket(t, cookie)
	id := ""
	for _, srv := range snap.Servers {
		if srv.Name == fixtureName {
			id = srv.ID
		}
	}
	if id == "" {
		id = other.addServer(fixtureName, fx.URL())
	}

	op, err := wire.Op("too-big", wire.OpAddServer, wire.AddServerArgs{Name: strings.Repeat("x", oversizedFrame), URL: fx.URL()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := wire.Encode(op)
	if err != nil {
		t.Fatal(err)
	}
	// Read while writing: the relay closes the socket before all of the
	// frame is written, and the close frame must not be lost in the reset.
	type closed struct {
		code websocket.StatusCode
		err  error
	}
	done := make(chan closed, 1)
	go func() {
		code, _, err := big.readToClose()
		done <- closed{code, err}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), socketTimeout)
	defer cancel()
	if err := big.c.Write(ctx, websocket.MessageText, b); err != nil {
		t.Logf("writing the oversized frame: %v", err)
	}
	if got := <-done; got.err != nil || got.code != websocket.StatusMessageTooBig {
		t.Errorf("a %d-byte frame closed the socket with %d (%v), want %d", len(b), got.code, got.err, websocket.StatusMessageTooBig)
	}

	fx.AddTool("late", "still delivered")
	other.waitChange("the new tool on the other dashboard", func(c wire.Change) bool {
		return c.Kind == wire.KindTool && c.Server == id && c.Key == "late" && !c.Remove
	})
}
