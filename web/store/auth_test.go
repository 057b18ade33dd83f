package store

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// fakePopup records what the client did with the authorization window.
type fakePopup struct {
	blocked bool
	opened  string
	closed  bool
}

func (p *fakePopup) Open(url string) bool {
	if p.blocked {
		return false
	}
	p.opened = url
	return true
}

func (p *fakePopup) Close() { p.closed = true }

const authURL = "https://auth.example.com/authorize?client_id=c&state=s"

func TestAuthorizeOpensTheURLInThePopup(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	p := &fakePopup{}
	c.Authorize("s2", p)
	var args wire.ServerArgs
	f := opFrame(t, s, wire.OpAuthorize, &args)
	if args.Server != "s2" || !c.View().Auth["s2"].Sending {
		t.Fatalf("authorize args %+v flow %+v", args, c.View().Auth["s2"])
	}
	before := c.View()
	s.result(f.ID, wire.AuthorizeResult{URL: authURL})
	if p.opened != authURL || p.closed {
		t.Errorf("popup opened %q closed %t, want it at the URL", p.opened, p.closed)
	}
	if got := c.View().Auth["s2"]; got != (AuthFlow{Opened: true}) {
		t.Errorf("flow = %+v, want opened", got)
	}
	if !before.Auth["s2"].Sending {
		t.Error("an earlier view's flow changed under the views' feet")
	}
}

func TestAuthorizeKeepsALinkWhenThePopupWasBlocked(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	c.Authorize("s2", &fakePopup{blocked: true})
	s.result(s.lastFrame().ID, wire.AuthorizeResult{URL: authURL})
	if got := c.View().Auth["s2"]; got.Link != authURL || got.Opened || got.Err != nil {
		t.Errorf("flow = %+v, want the URL as a link", got)
	}
}

func TestAuthorizeClosesThePopupOnAnError(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	p := &fakePopup{}
	c.Authorize("s2", p)
	s.recv(wire.ErrorFrame(s.lastFrame().ID, wire.NewError(wire.CodeUpstream, "no authorization server found")))
	if !p.closed || p.opened != "" {
		t.Errorf("popup closed %t opened %q, want closed", p.closed, p.opened)
	}
	if got := c.View().Auth["s2"]; got.Err == nil || got.Err.Code != wire.CodeUpstream || got.Sending {
		t.Errorf("flow = %+v, want the error", got)
	}
}

func TestAuthorizeRefusesAURLThatMayNotBeOpened(t *testing.T) {
	for _, bad := range []string{"javascript:alert(1)", "http://auth.example.com/authorize", "data:text/html,hi", ""} {
		r, c := newRelay(t)
		s := connect(t, r, c, 1, twoServers())
		p := &fakePopup{}
		c.Authorize("s2", p)
		s.result(s.lastFrame().ID, wire.AuthorizeResult{URL: bad})
		got := c.View().Auth["s2"]
		if p.opened != "" || !p.closed || got.Link != "" || got.Err == nil || got.Err.Code != wire.CodeInvalidURL ||
			!strings.Contains(got.Err.Message, "will not be opened") {
			t.Errorf("URL %q: popup %+v flow %+v, want it refused", bad, p, got)
		}
	}
}

func TestAuthorizeSendsOneRequestAtATime(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	c.Authorize("s2", &fakePopup{})
	second := &fakePopup{}
	c.Authorize("s2", second)
	if n := len(s.frames()); n != 2 { // hello and one authorize
		t.Errorf("%d frames sent, want 2", n)
	}
	if second.opened != "" {
		t.Errorf("the second popup was used: %+v", second)
	}
}
