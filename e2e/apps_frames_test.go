package e2e

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/appsfixture"
)

// Looking inside an MCP App's frames. The dashboard frames the sandbox proxy
// from the Apps origin, another site, and the proxy frames the view in a
// sandboxed srcdoc iframe without allow-same-origin: Chromium runs each as a
// target of its own (an out-of-process iframe, whose target id is its frame
// id), so chromedp reaches them by attaching to those targets.

// frameIDOf returns the id of the frame that the iframe element sel selects
// in p's document shows, "" while there is no such element.
func (p *tab) frameIDOf(sel string) cdp.FrameID {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: fmt.Sprintf(`document.querySelector(%s)`, jsString(sel))})
	if err != nil {
		p.t.Fatalf("find %s: %v", sel, err)
	}
	if res.ExceptionDetails != nil {
		p.t.Fatalf("find %s: %s", sel, res.ExceptionDetails.Text)
	}
	if res.Result == nil || res.Result.ObjectID == "" {
		return ""
	}
	node, err := chromedp.Call(ctx, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: res.Result.ObjectID})
	if err != nil {
		p.t.Fatalf("describe %s: %v", sel, err)
	}
	return node.Node.FrameID
}

// frameIn waits until the iframe that sel selects in p's document runs in
// a target of its own, attaches to it and returns it as a tab, whose console
// is checked like a page's (an uncaught exception fails the test); it closes
// when the test ends.
func (p *tab) frameIn(sel string) *tab {
	p.t.Helper()
	return p.attachFrame(sel, (*tab).checkConsole)
}

// untrustedFrameIn is frameIn for a frame whose script is not ours, a
// view's: its console is only logged, as a hostile view may throw what it
// likes.
func (p *tab) untrustedFrameIn(sel string) *tab {
	p.t.Helper()
	return p.attachFrame(sel, func(f *tab) {
		for _, m := range f.consoleErrors() {
			f.t.Logf("view console: %s", m)
		}
	})
}

// attachFrame attaches to the frame of the iframe sel selects, once it runs
// in a target of its own, and runs check on it when the test ends.
func (p *tab) attachFrame(sel string, check func(*tab)) *tab {
	p.t.Helper()
	var id target.ID
	waitFor(p.t, "the frame of "+sel+" in a target of its own", func() bool {
		fid := p.frameIDOf(sel)
		if fid == "" {
			return false
		}
		infos, err := chromedp.Targets(p.ctx)
		if err != nil {
			return false
		}
		for _, info := range infos {
			if info.Type == "iframe" && info.TargetID == target.ID(fid) {
				id = info.TargetID
				return true
			}
		}
		return false
	})
	// Detach on cancel: closing a frame's target closes the page.
	ctx, cancel := chromedp.NewContext(p.ctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		p.t.Fatalf("attach to the frame of %s: %v", sel, err)
	}
	f := &tab{t: p.t, ctx: ctx}
	f.watchConsole()
	p.t.Cleanup(func() {
		check(f)
		cancel()
	})
	return f
}

// request is one request of a tab's network log.
type request struct {
	URL     string
	Blocked string // why the browser refused it (csp, ...), "" if it did not
	Failed  string // the error text when it failed
}

// requestLog records what a tab (a page or a frame's target) asks of the
// network.
type requestLog struct {
	mu   sync.Mutex
	byID map[network.RequestID]int
	reqs []request
}

// watchRequests records the tab's requests from now on.
func (p *tab) watchRequests() *requestLog {
	p.t.Helper()
	l := &requestLog{byID: map[network.RequestID]int{}}
	err := chromedp.Listen(p.ctx, func(ev any) {
		l.mu.Lock()
		defer l.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			l.byID[ev.RequestID] = len(l.reqs)
			l.reqs = append(l.reqs, request{URL: ev.Request.URL})
		case *network.EventLoadingFailed:
			if i, ok := l.byID[ev.RequestID]; ok {
				l.reqs[i].Blocked, l.reqs[i].Failed = string(ev.BlockedReason), ev.ErrorText
			}
		}
	})
	if err != nil {
		p.t.Fatalf("listen for requests: %v", err)
	}
	return l
}

// to returns the requests whose URL starts with prefix.
func (l *requestLog) to(prefix string) []request {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []request
	for _, r := range l.reqs {
		if strings.HasPrefix(r.URL, prefix) {
			out = append(out, r)
		}
	}
	return out
}

// TestFrameHelpersOnAMiniHost shows the hostile views of appsfixture in the
// mini host (a page with a cross-site proxy frame that frames the view) and
// looks inside both frames with frameIn: it tests the helpers the Apps tests
// use, and that each hostile view runs its attack and reports it, apart from
// the dashboard. The flood (about 20 s: each message crosses processes) and
// the huge view are left to the dashboard's test, whose proxy caps them.
func TestFrameHelpersOnAMiniHost(t *testing.T) {
	fx := appsfixture.Start(t)
	h := startMiniHost(t, fx.URL())
	// show opens the view of attack in a tab and returns the tab, with its
	// network log, and the view.
	show := func(t *testing.T, attack string) (page *tab, requests *requestLog, view *tab) {
		page = openTab(t)
		requests = page.watchRequests()
		page.navigate(h.pageURL(attack, appsfixture.URI(attack)))
		proxy := page.frameIn("iframe.app-frame")
		if got := eval[string](proxy, "location.origin"); got != h.proxy {
			t.Errorf("the proxy frame is at %s, want %s", got, h.proxy)
		}
		view = proxy.untrustedFrameIn("iframe")
		t.Cleanup(func() {
			if got := requests.to(fx.ProbeOrigin()); len(got) != 0 {
				t.Errorf("the host page itself asked the probe server for %+v", got)
			}
		})
		return page, requests, view
	}

	t.Run("read_parent", func(t *testing.T) {
		page, _, view := show(t, appsfixture.ReadParent)
		view.waitText("#status", "reported")
		if got := eval[string](view, "origin"); got != "null" {
			t.Errorf("the view's origin is %q, want null", got)
		}
		for name, p := range probes(t, fx, appsfixture.ReadParent) {
			if p.OK {
				t.Errorf("the view read %s: %q", name, p.Value)
			}
		}
		if got := page.cookiesOf(h.host); !slices.Equal(got, []string{"hostsecret"}) {
			t.Errorf("the host's cookies are %v", got)
		}
	})

	t.Run("navigate_top", func(t *testing.T) {
		page, _, view := show(t, appsfixture.NavigateTop)
		view.waitText("#status", "reported")
		checkNavigation(t, probes(t, fx, appsfixture.NavigateTop))
		if got := eval[string](page, "location.origin"); got != h.host {
			t.Errorf("the page went to %s", got)
		}
		if got := fx.Probes(); len(got) != 0 {
			t.Errorf("the probe server was reached: %q", got)
		}
	})

	t.Run("forge_messages", func(t *testing.T) {
		page, _, view := show(t, appsfixture.ForgeMessages)
		view.waitText("#status", "reported")
		if n := eval[int](page, "strays.length"); n == 0 {
			t.Error("the host got none of the messages the view posted to top")
		}
		if got := fx.ReportsOf(appsfixture.ForgeMessages); len(got) != 1 {
			t.Errorf("the forging view reported %d times, want once", len(got))
		}
		for _, a := range []string{appsfixture.ForgedViaTopAttack, appsfixture.ForgedHTMLAttack} {
			if got := fx.ReportsOf(a); len(got) != 0 {
				t.Errorf("a forged report ran: %+v", got)
			}
		}
	})

	t.Run("fetch_undeclared", func(t *testing.T) {
		_, _, view := show(t, appsfixture.FetchUndeclared)
		view.waitText("#status", "reported")
		out := fetchOutcome(t, fx, appsfixture.FetchUndeclared)
		if out.OK || !slices.ContainsFunc(out.Violations, func(v string) bool { return strings.HasPrefix(v, "connect-src") }) {
			t.Errorf("the undeclared fetch: %+v", out)
		}
		if got := fx.Probes(); len(got) != 0 {
			t.Errorf("the probe server was reached: %q", got)
		}
	})

	t.Run("fetch_declared", func(t *testing.T) {
		_, _, view := show(t, appsfixture.FetchDeclared)
		view.waitText("#status", "reported")
		if out := fetchOutcome(t, fx, appsfixture.FetchDeclared); !out.OK || out.Body != appsfixture.ProbeBody {
			t.Errorf("the declared fetch: %+v", out)
		}
		if got := fx.Probes(); !slices.Contains(got, appsfixture.ProbePath+"?from=declared") {
			t.Errorf("the probe server got %q", got)
		}
	})
}

// TestBasicServerOnAMiniHost checks the example server as the Apps tests
// use it: its tool names its view, and the view, shown by the mini host,
// shows the tool's result, takes the host's theme and calls the tool back.
func TestBasicServerOnAMiniHost(t *testing.T) {
	url := startBasicServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != basicTool || !reflect.DeepEqual(tools.Tools[0].Meta["ui"], map[string]any{"resourceUri": basicURI}) {
		t.Fatalf("tools %s", mustJSON(tools.Tools))
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: basicURI})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].MIMEType != appsfixture.MIMEType {
		t.Fatalf("read %s: %v, %v", basicURI, res, err)
	}

	h := startMiniHost(t, url)
	page := openTab(t)
	page.navigate(h.pageURL(basicTool, basicURI))
	view := page.frameIn("iframe.app-frame").untrustedFrameIn("iframe")
	first := waitValue[string](view, "the tool's result in the view", `(t => /^\d{4}-/.test(t) && t)(document.querySelector("#server-time")?.textContent ?? "")`)
	view.waitAttr("html", "data-theme", "dark")
	view.click("#get-time-btn")
	view.waitJS("a new time from the call through the host", fmt.Sprintf(`document.querySelector("#server-time").textContent !== %s`, jsString(first)))
}
