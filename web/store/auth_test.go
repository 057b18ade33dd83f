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

// opens returns the popup opener Authorize takes, counting its calls in n.
func opens(p Popup, n *int) func() Popup {
	return func() Popup { *n++; return p }
}

// open is an opener of p that counts nothing.
func open(p Popup) func() Popup { return func() Popup { return p } }

// authenticating is the state of twoServers with s2 waiting for an authorization.
func authenticating() wire.Snapshot {
	s := twoServers()
	s.Servers[1].State = wire.StateAuthenticating
	return s
}

func TestAuthorizeOpensTheURLInThePopup(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, authenticating())
	p := &fakePopup{}
	c.Authorize("s2", open(p))
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
	s := connect(t, r, c, 1, authenticating())
	c.Authorize("s2", open(&fakePopup{blocked: true}))
	s.result(s.lastFrame().ID, wire.AuthorizeResult{URL: authURL})
	if got := c.View().Auth["s2"]; got.Link != authURL || got.Opened || got.Err != nil {
		t.Errorf("flow = %+v, want the URL as a link", got)
	}
}

func TestAuthorizeClosesThePopupOnAnError(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, authenticating())
	p := &fakePopup{}
	c.Authorize("s2", open(p))
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
		s := connect(t, r, c, 1, authenticating())
		p := &fakePopup{}
		c.Authorize("s2", open(p))
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
	s := connect(t, r, c, 1, authenticating())
	first, second := 0, 0
	c.Authorize("s2", opens(&fakePopup{}, &first))
	c.Authorize("s2", opens(&fakePopup{}, &second))
	if n := len(s.frames()); n != 2 { // hello and one authorize
		t.Errorf("%d frames sent, want 2", n)
	}
	if first != 1 || second != 0 {
		t.Errorf("popups opened: %d for the request sent, %d for the one not sent; want 1 and 0", first, second)
	}
}

func TestAuthorizationFlowEndsWhenTheServerStopsAuthenticating(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, authenticating())
	c.Authorize("s2", open(&fakePopup{}))
	s.result(s.lastFrame().ID, wire.AuthorizeResult{URL: authURL})
	if !c.View().Auth["s2"].Opened {
		t.Fatalf("flow = %+v, want opened", c.View().Auth["s2"])
	}
	srv := authenticating().Servers[1]
	srv.State = wire.StateConnecting
	s.delta(2, serverChange(srv))
	if f, ok := c.View().Auth["s2"]; ok {
		t.Errorf("the flow outlived the authentication: %+v", f)
	}
	srv.State = wire.StateAuthenticating
	s.delta(3, serverChange(srv))
	if f, ok := c.View().Auth["s2"]; ok {
		t.Errorf("a server authenticating again shows the old flow: %+v", f)
	}
}

func TestAuthorizationFlowEndsWithItsServer(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, authenticating())
	c.Authorize("s2", open(&fakePopup{blocked: true}))
	s.result(s.lastFrame().ID, wire.AuthorizeResult{URL: authURL})
	if c.View().Auth["s2"].Link != authURL {
		t.Fatalf("flow = %+v, want the link", c.View().Auth["s2"])
	}
	s.delta(2, wire.Change{Kind: wire.KindServer, Server: "s2", Key: "s2", Remove: true})
	if f, ok := c.View().Auth["s2"]; ok {
		t.Errorf("the removed server's flow stayed: %+v", f)
	}
}

func TestAnswerForAServerNoLongerAuthenticatingIsNotKept(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, authenticating())
	c.Authorize("s2", open(&fakePopup{blocked: true}))
	id := s.lastFrame().ID
	srv := authenticating().Servers[1]
	srv.State = wire.StateReady
	s.delta(2, serverChange(srv))
	s.result(id, wire.AuthorizeResult{URL: authURL})
	if f, ok := c.View().Auth["s2"]; ok {
		t.Errorf("a late answer left a flow on a ready server: %+v", f)
	}
}
