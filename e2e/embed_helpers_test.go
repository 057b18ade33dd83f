package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/demohost"
	"github.com/switchboard-mcp/switchboard/relay/service"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// embedWorld is a relay that lets one site embed it, that site (the demo
// host, on http://localhost:PORT: another site than the relay's 127.0.0.1)
// and a second site it does not list.
type embedWorld struct {
	r        *relay
	host     *demohost.Host
	hostURL  string // listed
	otherURL string // not listed
}

// startEmbedWorld starts the relay and both sites; they stop when the test ends.
func startEmbedWorld(t *testing.T) *embedWorld {
	t.Helper()
	addr := freeLoopbackAddr(t)
	relayURL := "http://" + addr
	host, hostURL := startDemoHost(t, relayURL)
	_, otherURL := startDemoHost(t, relayURL)
	pub, err := host.PublicKeyPEM()
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "host-keys.pem")
	if err := os.WriteFile(keyFile, pub, 0o600); err != nil {
		t.Fatal(err)
	}
	w := &embedWorld{host: host, hostURL: hostURL, otherURL: otherURL}
	w.r = &relay{
		t: t,
		cfg: service.Config{
			DataDir:        t.TempDir(),
			AllowLoopback:  true,
			HealthInterval: healthInterval,
			RetryMin:       retryMin,
			RetryMax:       retryMax,
			PublicURL:      relayURL,
			HostKeysFile:   keyFile,
			HostIssuer:     demohost.Issuer,
			EmbedOrigins:   []string{hostURL},
			Logger:         testLogger(t, "relay"),
		},
		addr: addr,
	}
	w.r.start()
	t.Cleanup(w.r.stop)
	return w
}

// startDemoHost serves a demo host site for relayURL on a free loopback
// port and returns it with its address as a browser opens it.
func startDemoHost(t *testing.T, relayURL string) (*demohost.Host, string) {
	t.Helper()
	h, err := demohost.New(demohost.Config{RelayURL: relayURL, Audience: service.DefaultAudience})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return h, fmt.Sprintf("http://localhost:%d", ln.Addr().(*net.TCPAddr).Port)
}

// hostSocket is a Go dashboard of a host's user, to set up their servers
// and call tools while the embed shows them.
func (w *embedWorld) hostSocket(t testing.TB, user string) (*socket, wire.Snapshot) {
	t.Helper()
	tok, err := w.host.Mint(user, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	h := w.r.dialHeaders(nil)
	h.Set("Authorization", "Bearer "+tok)
	c, _, err := w.r.dial(h)
	if err != nil {
		t.Fatalf("dial relay as %s: %v", user, err)
	}
	s := &socket{t: t, c: c, url: w.r.wsURL(), header: h}
	t.Cleanup(func() { c.CloseNow() })
	s.send(wire.Frame{Type: wire.TypeHello, Data: json.RawMessage(`{}`)})
	snap := s.snapshot()
	if want := authn.HostUserPrefix + user; snap.User != want {
		t.Fatalf("the relay sees %q, want %q", snap.User, want)
	}
	return s, snap
}

// embedded is a host page and the dashboard framed in it.
type embedded struct {
	host  *tab
	frame *tab
}

// openEmbed opens the host page at base with query, attaches to the frame
// it embeds and returns both.
func openEmbed(t *testing.T, base string, query url.Values) *embedded {
	t.Helper()
	host := openTab(t)
	host.navigate(base + "/?" + query.Encode())
	return &embedded{host: host, frame: host.frameOf(t)}
}

// frameOf waits for the cross-site frame of the tab's page and attaches to it.
func (p *tab) frameOf(t *testing.T) *tab {
	t.Helper()
	c := chromedp.FromContext(p.ctx)
	if c == nil || c.Target == nil {
		t.Fatal("the host tab has no target")
	}
	parent := cdp.FrameID(c.Target.TargetID)
	var id target.ID
	waitFor(t, "the embed's frame", func() bool {
		infos, err := chromedp.Targets(p.ctx)
		if err != nil {
			return false
		}
		for _, info := range infos {
			if info.Type == "iframe" && info.ParentFrameID == parent {
				id = info.TargetID
				return true
			}
		}
		return false
	})
	ctx, cancel := chromedp.NewContext(p.ctx, chromedp.WithTargetID(id))
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		t.Fatalf("attach to the embed's frame: %v", err)
	}
	f := &tab{t: t, ctx: ctx}
	f.watchConsole()
	t.Cleanup(func() {
		f.checkConsole()
		cancel()
	})
	return f
}

// waitEmbed waits until the embed shows status (data-status of #switchboard).
func (p *tab) waitEmbed(status string) {
	p.t.Helper()
	p.waitAttr("#switchboard", "data-status", status)
}

// hostEvents returns the events the host page heard from the embed.
func (p *tab) hostEvents() []map[string]any {
	p.t.Helper()
	return eval[[]map[string]any](p, `window.hostEvents ?? []`)
}

// waitHostEvent waits until the host page heard an event of typ for which
// match (JavaScript, of ev) holds.
func (p *tab) waitHostEvent(typ, match string) {
	p.t.Helper()
	p.waitJS(fmt.Sprintf("a %s event with %s", typ, match),
		fmt.Sprintf(`(window.hostEvents ?? []).some(ev => ev.type === %s && (%s))`, jsString(typ), match))
}

// eventTypes lists the types of events, in order.
func eventTypes(events []map[string]any) []string {
	var out []string
	for _, ev := range events {
		out = append(out, fmt.Sprint(ev["type"]))
	}
	return out
}

// rowNames returns the names of the servers the page lists.
func (p *tab) rowNames() []string {
	p.t.Helper()
	names := eval[[]string](p, `[...document.querySelectorAll(".server-row")].map(r => r.dataset.serverName)`)
	slices.Sort(names)
	return names
}

// callAsync starts a tool call on s and returns the channel of its answer.
func callAsync(s *socket, id string, args wire.CallToolArgs) <-chan wire.Frame {
	s.t.Helper()
	f, err := wire.Op(id, wire.OpCallTool, args)
	if err != nil {
		s.t.Fatal(err)
	}
	s.send(f)
	out := make(chan wire.Frame, 1)
	go func() {
		defer close(out)
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		for {
			_, b, err := s.c.Read(ctx)
			if err != nil {
				return
			}
			f, err := wire.Decode(b)
			if err == nil && f.ID == id && (f.Type == wire.TypeResult || f.Type == wire.TypeError) {
				out <- f
				return
			}
		}
	}()
	return out
}

// resultText returns the text of a tool call's result frame.
func resultText(f wire.Frame) (string, error) {
	if f.Type != wire.TypeResult {
		return "", fmt.Errorf("the call failed: %+v", f.Error)
	}
	var res wire.CallToolResult
	if err := json.Unmarshal(f.Data, &res); err != nil {
		return "", err
	}
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, c.Text)
	}
	if len(parts) == 0 {
		return "", errors.New("the result has no content")
	}
	return strings.Join(parts, ""), nil
}

// openedPopup clicks sel in p and attaches to the window the click opens,
// once it shows the fixture's consent page.
func (p *tab) openedPopup(sel string) *tab {
	p.t.Helper()
	before := map[target.ID]bool{}
	infos, err := chromedp.Targets(p.ctx)
	if err != nil {
		p.t.Fatal(err)
	}
	for _, info := range infos {
		before[info.TargetID] = true
	}
	p.click(sel)
	var id target.ID
	waitFor(p.t, "the authorization popup", func() bool {
		infos, err := chromedp.Targets(p.ctx)
		if err != nil {
			return false
		}
		for _, info := range infos {
			if info.Type == "page" && !before[info.TargetID] && info.OpenerID != "" {
				id = info.TargetID
				return true
			}
		}
		return false
	})
	ctx, cancel := chromedp.NewContext(p.ctx, chromedp.WithTargetID(id))
	p.t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		p.t.Fatalf("attach to the popup: %v", err)
	}
	popup := &tab{t: p.t, ctx: ctx}
	popup.do("the consent page in the popup", chromedp.WaitVisible(chromedp.CSS("#approve")))
	return popup
}

// socketWatch counts the WebSockets a frame opens and closes.
type socketWatch struct {
	mu              sync.Mutex
	created, closed int
}

// watchSockets counts the WebSockets p opens and closes from now on.
func (p *tab) watchSockets() *socketWatch {
	p.t.Helper()
	w := &socketWatch{}
	err := chromedp.Listen(p.ctx, func(ev any) {
		w.mu.Lock()
		defer w.mu.Unlock()
		switch ev.(type) {
		case *network.EventWebSocketCreated:
			w.created++
		case *network.EventWebSocketClosed:
			w.closed++
		}
	})
	if err != nil {
		p.t.Fatalf("listen for WebSockets: %v", err)
	}
	return w
}

// counts returns the sockets opened and closed so far.
func (w *socketWatch) counts() (created, closed int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.created, w.closed
}

// cookiesOf returns the names of the cookies the browser holds for u, as
// the page of p would send them.
func (p *tab) cookiesOf(u string) []string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{u}})
	if err != nil {
		p.t.Fatalf("read cookies: %v", err)
	}
	var names []string
	for _, c := range res.Cookies {
		names = append(names, c.Name)
	}
	return names
}
