package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/appsfixture"
)

// Looking inside an MCP App's frames. A frame on another site, or a
// sandboxed frame (an opaque origin), runs in another process than its
// parent, and Chromium shows it as a target of its own (an out-of-process
// iframe, whose target id is its frame id): chromedp reaches it by attaching
// to that target. Sandboxed frames of one site share one process, though:
// the dashboard frames the sandbox proxy sandboxed, and the view the proxy
// frames runs in the proxy's process, inside the proxy's target. A tab
// reaches such a frame through its parent's target, in the frame's main
// world (its default execution context).
//
// Each attached target's console is recorded from the attach on, each
// message with the frame whose context wrote it, so that a view's messages
// are checked as a view's even in its proxy's target.

// frameWorld is how a tab of a frame reaches it: the frame's id, and the
// record of the target it runs in.
type frameWorld struct {
	id     cdp.FrameID
	rec    *targetRecord
	shared bool // the frame is not its target's own but a frame inside it
}

// evalOpts make an evaluation run in the frame's main world; none for a
// page.
func (w *frameWorld) evalOpts() []chromedp.EvaluateOption {
	if w == nil {
		return nil
	}
	return []chromedp.EvaluateOption{func(p *runtime.EvaluateParams) { p.UniqueContextID = w.world() }}
}

// pollOpts make a poll run in the frame; none for a page.
func (w *frameWorld) pollOpts() []chromedp.PollOption {
	if w == nil {
		return nil
	}
	// The poll runs in the frame an iframe node shows: the node needs no
	// more than that frame's id.
	return []chromedp.PollOption{chromedp.WithPollingInFrame(&chromedp.Node{Node: &cdp.Node{FrameID: w.id}})}
}

// world is the unique id of the frame's main world; one that names no
// context when the frame has none, so that an evaluation fails rather than
// run in the target's own frame.
func (w *frameWorld) world() string {
	if id := w.rec.world(w.id); id != "" {
		return id
	}
	return "no-context-of-frame-" + string(w.id)
}

// inShared says whether p is a frame inside its target, not the target's
// own.
func (p *tab) inShared() bool { return p.in != nil && p.in.shared }

// targetRecord is what the target of a frame said since it was attached:
// the main world of each of its frames, and its console.
type targetRecord struct {
	own cdp.FrameID // the target's own frame

	mu      sync.Mutex
	worlds  map[cdp.FrameID]string                     // the unique id of each frame's main world
	frameOf map[runtime.ExecutionContextID]cdp.FrameID // the frame of each context
	console []frameMessage
	claimed map[cdp.FrameID]bool // frames a tab checks the console of
}

// frameMessage is a console message and the frame that wrote it ("" when
// the browser does not say: an entry of its log).
type frameMessage struct {
	frame cdp.FrameID
	m     chromedp.ConsoleMessage
}

func newTargetRecord(own cdp.FrameID) *targetRecord {
	return &targetRecord{own: own, worlds: map[cdp.FrameID]string{}, frameOf: map[runtime.ExecutionContextID]cdp.FrameID{},
		claimed: map[cdp.FrameID]bool{own: true}}
}

// listen records an event of the target; it runs in the target's loop,
// from before the attach's Runtime.enable, which reports every context the
// target already has.
func (r *targetRecord) listen(ev any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventExecutionContextCreated:
		var aux struct {
			FrameID   cdp.FrameID `json:"frameId"`
			IsDefault bool        `json:"isDefault"`
		}
		if json.Unmarshal(ev.Context.AuxData, &aux) != nil || aux.FrameID == "" {
			return
		}
		r.frameOf[ev.Context.ID] = aux.FrameID
		if aux.IsDefault {
			r.worlds[aux.FrameID] = ev.Context.UniqueID
		}
	case *runtime.EventExecutionContextDestroyed:
		for f, id := range r.worlds {
			if id == ev.ExecutionContextUniqueID {
				delete(r.worlds, f)
			}
		}
	case *runtime.EventExecutionContextsCleared:
		clear(r.worlds)
	case *runtime.EventConsoleAPICalled:
		m := chromedp.ConsoleMessage{Type: chromedp.ConsoleType(ev.Type), Text: argsText(ev.Args), Args: ev.Args, Stack: ev.StackTrace}
		if st := ev.StackTrace; st != nil && len(st.CallFrames) > 0 {
			m.URL, m.Line, m.Column = st.CallFrames[0].URL, st.CallFrames[0].LineNumber, st.CallFrames[0].ColumnNumber
		}
		r.console = append(r.console, frameMessage{r.frameOf[ev.ExecutionContextID], m})
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil {
			desc, _, _ := strings.Cut(d.Exception.Description, "\n")
			text = strings.TrimSpace(text + " " + desc)
		}
		m := chromedp.ConsoleMessage{Type: chromedp.ConsoleException, Text: text, URL: d.URL, Line: d.LineNumber, Column: d.ColumnNumber,
			Stack: d.StackTrace, Exception: d}
		r.console = append(r.console, frameMessage{r.frameOf[d.ExecutionContextID], m})
	case *log.EventEntryAdded:
		e := ev.Entry
		typ := chromedp.ConsoleType(e.Level)
		if e.Level == log.EntryLevelVerbose {
			typ = chromedp.ConsoleDebug
		}
		r.console = append(r.console, frameMessage{"", chromedp.ConsoleMessage{Type: typ, Text: e.Text, URL: e.URL, Line: e.LineNumber,
			Source: string(e.Source), Stack: e.StackTrace}})
	}
}

// argsText is the text of a console call's arguments: strings as they are,
// other values as DevTools describes them.
func argsText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		var s string
		switch {
		case a.Type == runtime.RemoteObjectTypeString && json.Unmarshal(a.Value, &s) == nil:
		case a.Description != "":
			s = a.Description
		case len(a.Value) > 0:
			s = string(a.Value)
		default:
			s = string(a.Type)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// world is the unique id of frame's main world, "" if it has none now.
func (r *targetRecord) world(frame cdp.FrameID) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.worlds[frame]
}

// claim says a tab checks the console of frame.
func (r *targetRecord) claim(frame cdp.FrameID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.claimed[frame] = true
}

// messages returns the console of frame; the target's own frame gets the
// browser's log entries too. Unclaimed lists the messages of frames no tab
// checks (a view the test did not look into).
func (r *targetRecord) messages(frame cdp.FrameID) (own, unclaimed []chromedp.ConsoleMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, fm := range r.console {
		switch {
		case fm.frame == frame || (frame == r.own && fm.frame == ""):
			own = append(own, fm.m)
		case frame == r.own && !r.claimed[fm.frame]:
			unclaimed = append(unclaimed, fm.m)
		}
	}
	return own, unclaimed
}

// frameIDOf returns the id of the frame that the iframe element sel selects
// in p's document shows, "" while there is no such element.
func (p *tab) frameIDOf(sel string) cdp.FrameID {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	params := runtime.EvaluateParams{Expression: fmt.Sprintf(`document.querySelector(%s)`, jsString(sel))}
	for _, o := range p.in.evalOpts() {
		o(&params)
	}
	res, err := chromedp.Call(ctx, runtime.Evaluate, params)
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

// frameIn waits until the frame of the iframe that sel selects in p's
// document has its document, in a target of its own or in p's, and returns
// it as a tab, whose console is checked like a page's (an uncaught exception
// fails the test) when the test ends.
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

// attachFrame returns a tab of the frame of the iframe sel selects: once
// it runs in a target of its own, attached to that target; once it has a
// document (past its initial about:blank) in p's target, a tab of p's
// target that runs in the frame. check runs on it when the test ends.
func (p *tab) attachFrame(sel string, check func(*tab)) *tab {
	p.t.Helper()
	var id cdp.FrameID
	own := false
	waitFor(p.t, "the frame of "+sel+" with its document", func() bool {
		if id = p.frameIDOf(sel); id == "" {
			return false
		}
		infos, err := chromedp.Targets(p.ctx)
		if err != nil {
			return false
		}
		for _, info := range infos {
			if info.Type == "iframe" && info.TargetID == target.ID(id) {
				own = true
				return true
			}
		}
		return p.in != nil && p.hasDocument(id)
	})
	if !own {
		p.in.rec.claim(id)
		f := &tab{t: p.t, ctx: p.ctx, in: &frameWorld{id: id, rec: p.in.rec, shared: true}}
		p.t.Cleanup(func() {
			f.console, _ = f.in.rec.messages(id)
			check(f)
		})
		return f
	}
	rec := newTargetRecord(id)
	// Detach on cancel: closing a frame's target closes the page.
	ctx, cancel := chromedp.NewContext(p.ctx, chromedp.WithTargetID(target.ID(id)), chromedp.WithDetachOnCancel(), chromedp.WithListener(rec.listen))
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		p.t.Fatalf("attach to the frame of %s: %v", sel, err)
	}
	f := &tab{t: p.t, ctx: ctx, in: &frameWorld{id: id, rec: rec}}
	p.t.Cleanup(func() {
		var others []chromedp.ConsoleMessage
		f.console, others = rec.messages(id)
		check(f)
		for _, m := range others {
			f.t.Logf("console of a frame inside %s: %s", sel, m)
		}
		cancel()
	})
	return f
}

// hasDocument says whether frame runs in p's target with a document of its
// own: a main world there whose location is not the initial about:blank (a
// frame about to move to another process has that one first).
func (p *tab) hasDocument(frame cdp.FrameID) bool {
	world := p.in.rec.world(frame)
	if world == "" {
		return false
	}
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string]("location.href", func(e *runtime.EvaluateParams) { e.UniqueContextID = world }))
	return err == nil && href != "about:blank"
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
