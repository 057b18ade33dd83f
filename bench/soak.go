package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// soakConfig is the size and pace of a soak (make soak).
type soakConfig struct {
	duration   time.Duration
	dashboards int           // dashboards of the user, all reading every delta
	servers    int           // loopback MCP servers
	callers    int           // of the dashboards, those that call tools and answer
	agents     int           // agent sessions through /mcp
	dashEvery  time.Duration // one dashboard call per period
	agentEvery time.Duration // one agent call per period
	askEvery   time.Duration // one call that asks the person, per period
	restart    time.Duration // one server restarts per period
	sample     time.Duration // the relay's memory is read per period
}

// Soak pace and timeouts.
const (
	soakSlowCall    = time.Minute      // a call answered after this is late
	soakCallTimeout = 5 * time.Minute  // an unanswered call after this is lost
	soakSettle      = 30 * time.Second // restarts stop this long before the end
	soakAskPrefix   = "soak nonce "
	// soakUntaken is the failure of a call whose dashboard was dropped
	// before the relay read it; the ledger checks no server ran it.
	soakUntaken = "the dashboard was dropped before the relay took the call"
	// soakOrphanGrace is how long such a call may still show up.
	soakOrphanGrace = 30 * time.Second
)

// soakSchema is the form of the soak's ask: one string, the nonce.
var soakSchema = map[string]any{"type": "object", "properties": map[string]any{"nonce": map[string]any{"type": "string"}}, "required": []string{"nonce"}}

// nonceArgs is what the soak's tools take.
type nonceArgs struct {
	Nonce string `json:"nonce"`
}

// soakLedger counts what happened to every call: each nonce is run by a
// server at most once, asked of the person at most once, and settled for
// its caller once.
type soakLedger struct {
	mu      sync.Mutex
	runs    map[string]int  // nonce → times a server ran it
	asked   map[string]int  // nonce → answers the person gave
	untaken map[string]bool // nonces failed as soakUntaken

	sent, ok, failed, lost, late atomic.Int64
	failures                     sync.Map // error text → *atomic.Int64, for the report
}

func newSoakLedger() *soakLedger {
	return &soakLedger{runs: map[string]int{}, asked: map[string]int{}, untaken: map[string]bool{}}
}

func (l *soakLedger) note(m map[string]int, nonce string) {
	l.mu.Lock()
	m[nonce]++
	l.mu.Unlock()
}

// settle records a caller's answer to nonce, which took took: its text
// must be the nonce.
func (l *soakLedger) settle(nonce, text string, err error, took time.Duration) {
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		if took > soakSlowCall {
			l.late.Add(1)
		}
	}
	if err != nil && err.Error() == soakUntaken {
		l.mu.Lock()
		l.untaken[nonce] = true
		l.mu.Unlock()
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		l.lost.Add(1)
		kind := strings.TrimRight(nonce, "0123456789")
		n, _ := l.failures.LoadOrStore("no answer: a call of "+kind, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
	case err != nil:
		l.failed.Add(1)
		n, _ := l.failures.LoadOrStore(failureKind(err.Error()), new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
	case text != nonce:
		l.failed.Add(1)
		n, _ := l.failures.LoadOrStore("wrong result", new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
	default:
		l.ok.Add(1)
	}
}

// failureVariables are the parts of a failure's message that differ from
// one failure of a kind to the next, with what stands for them in the
// report: session ids, loopback ports, the soak's server names, nonces.
var failureVariables = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`session ID: [A-Z0-9]+`), "session ID: …"},
	{regexp.MustCompile(`127\.0\.0\.1:\d+`), "127.0.0.1:…"},
	{regexp.MustCompile(`soak\d+`), "soakN"},
	{regexp.MustCompile(`nonce.*`), ""},
}

// failureKind is a failure's message without what varies between failures
// of its kind, so that the report counts kinds.
func failureKind(msg string) string {
	for _, v := range failureVariables {
		msg = v.re.ReplaceAllString(msg, v.with)
	}
	return msg
}

// runButUntaken counts the calls failed as never taken that a server ran
// all the same: results lost on the way.
func (l *soakLedger) runButUntaken() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for nonce := range l.untaken {
		if l.runs[nonce] > 0 {
			n++
		}
	}
	return n
}

// duplicates counts nonces run or asked more than once.
func (l *soakLedger) duplicates() (runs, asks int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	count := func(m map[string]int) (n int) {
		for _, v := range m {
			if v > 1 {
				n++
			}
		}
		return n
	}
	return count(l.runs), count(l.asked)
}

// soakServer is a fixture with an echo tool and a tool that asks the
// person for the nonce before it answers.
func soakServer(l *soakLedger) *fixture.Loopback {
	return fixture.NewLoopback(func() *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: "soak", Version: "1"}, nil)
		mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Answers its nonce."},
			func(_ context.Context, _ *mcp.CallToolRequest, a nonceArgs) (*mcp.CallToolResult, any, error) {
				l.note(l.runs, a.Nonce)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Nonce}}}, nil, nil
			})
		mcp.AddTool(srv, &mcp.Tool{Name: "confirm", Description: "Asks the person for its nonce."},
			func(ctx context.Context, req *mcp.CallToolRequest, a nonceArgs) (*mcp.CallToolResult, any, error) {
				l.note(l.runs, a.Nonce)
				res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: soakAskPrefix + a.Nonce, RequestedSchema: soakSchema})
				if err != nil {
					return nil, nil, err
				}
				got, _ := res.Content["nonce"].(string)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: got}}}, nil, nil
			})
		return srv
	})
}

// soakDash is a dashboard that calls tools, as a browser tab does: a call
// is known by the id the dashboard gives it, and its outcome comes as the
// op's answer or in the call's state (a delta, or the snapshot after a
// reconnect). The relay drops a dashboard that falls too far behind; like a
// tab, this one reconnects and resyncs. The first caller answers the
// soak's asks.
type soakDash struct {
	relay   *relayProc
	token   string
	mu      sync.Mutex
	sock    *socket
	swapped chan struct{}               // closed when sock is replaced
	calls   map[string]chan soakOutcome // call id → its waiter
	states  map[string]wire.ServerState
	changed chan struct{}  // a server's state changed (buffered, one)
	onAsk   func(wire.Ask) // nil but on the answering dashboard
	seen    map[string]bool
	resyncs *atomic.Int64
}

// soakOutcome is how a call ended: its result or its error.
type soakOutcome struct {
	result json.RawMessage
	err    *wire.Error
}

// socket is the dashboard's socket, and a channel closed when it is
// replaced.
func (d *soakDash) socket() (*socket, <-chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sock, d.swapped
}

// run reads frames, reconnecting when the relay drops the dashboard, until
// ctx ends.
func (d *soakDash) run(ctx context.Context) {
	for {
		s, _ := d.socket()
		err := d.readLoop(ctx, s)
		if ctx.Err() != nil {
			return
		}
		logf("soak: a calling dashboard reconnects: %v", err)
		d.resyncs.Add(1)
		s, err = dialSocket(ctx, d.relay, d.token)
		if err != nil {
			logf("soak: a calling dashboard could not reconnect: %v", err)
			return
		}
		d.mu.Lock()
		d.sock = s
		d.mu.Unlock()
		d.resync(s)
		d.mu.Lock()
		close(d.swapped) // ops not sent for the drop go now
		d.swapped = make(chan struct{})
		d.mu.Unlock()
	}
}

// resync takes what a new socket's snapshot, and the frames before it
// synced, say of the calls and asks waited for. A call the relay does not
// know was never taken: the drop came before the relay read it, and the
// call fails as a tab's does.
func (d *soakDash) resync(s *socket) {
	f, err := wire.Decode(s.snap)
	if err != nil {
		return
	}
	var snap wire.Snapshot
	if json.Unmarshal(f.Data, &snap) != nil {
		return
	}
	known := map[string]bool{}
	for _, c := range snap.Calls {
		known[c.ID] = true
		d.noteCall(c)
	}
	for _, b := range s.early {
		if f, err := wire.Decode(b); err == nil && f.Type == wire.TypeDelta {
			var delta wire.Delta
			if json.Unmarshal(f.Data, &delta) == nil {
				for _, c := range delta.Changes {
					if c.Kind == wire.KindCall {
						known[c.Key] = true
					}
					d.noteChange(c)
				}
			}
		}
	}
	d.mu.Lock()
	var untaken []string
	for id := range d.calls {
		if !known[id] && !strings.HasPrefix(id, "answer-") {
			untaken = append(untaken, id)
		}
	}
	d.mu.Unlock()
	// An op the relay read just before the drop may start its call after
	// the snapshot: its state comes later, as it would to a tab, which
	// shows the connection lost until then.
	for _, id := range untaken {
		time.AfterFunc(soakOrphanGrace, func() {
			d.settle(id, soakOutcome{err: &wire.Error{Code: wire.Code(soakUntaken), Message: soakUntaken}})
		})
	}
	for _, srv := range snap.Servers {
		d.mu.Lock()
		d.states[srv.ID] = srv.State
		d.mu.Unlock()
	}
	for _, a := range snap.Asks {
		if d.onAsk != nil && a.State == wire.AskPending {
			d.seen[a.ID] = true
			go d.onAsk(a)
		}
	}
}

func (d *soakDash) readLoop(ctx context.Context, s *socket) error {
	for {
		_, b, err := s.c.Read(ctx)
		if err != nil {
			return err
		}
		f, err := wire.Decode(b)
		if err != nil {
			return err
		}
		switch f.Type {
		case wire.TypeResult, wire.TypeError:
			var out soakOutcome
			if f.Type == wire.TypeError {
				out.err = f.Error
			} else {
				out.result = f.Data
			}
			d.settle(f.ID, out)
		case wire.TypeDelta:
			var delta wire.Delta
			if err := json.Unmarshal(f.Data, &delta); err != nil {
				return err
			}
			for _, c := range delta.Changes {
				d.noteChange(c)
			}
		}
	}
}

// settle hands a call's outcome to its waiter, once.
func (d *soakDash) settle(id string, out soakOutcome) {
	d.mu.Lock()
	ch := d.calls[id]
	delete(d.calls, id)
	d.mu.Unlock()
	if ch != nil {
		ch <- out
	}
}

func (d *soakDash) noteCall(c wire.Call) {
	switch c.State {
	case wire.CallDone:
		d.settle(c.ID, soakOutcome{result: c.Result})
	case wire.CallFailed:
		d.settle(c.ID, soakOutcome{err: c.Error})
	}
}

func (d *soakDash) noteChange(c wire.Change) {
	switch {
	case c.Kind == wire.KindCall && !c.Remove:
		var call wire.Call
		if json.Unmarshal(c.Value, &call) == nil {
			d.noteCall(call)
		}
	case c.Kind == wire.KindServer && !c.Remove:
		var srv wire.Server
		if json.Unmarshal(c.Value, &srv) == nil {
			d.mu.Lock()
			d.states[c.Key] = srv.State
			d.mu.Unlock()
			select {
			case d.changed <- struct{}{}:
			default:
			}
		}
	case c.Kind == wire.KindAsk && !c.Remove && d.onAsk != nil:
		var a wire.Ask
		if json.Unmarshal(c.Value, &a) == nil && a.State == wire.AskPending && !d.seen[a.ID] {
			d.seen[a.ID] = true
			go d.onAsk(a)
		}
	}
}

// do sends an op whose id is id and waits for its outcome. A send that
// fails on a dropped socket is sent again once the dashboard reconnected.
func (d *soakDash) do(ctx context.Context, id string, name wire.OpName, args any) soakOutcome {
	f, err := wire.Op(id, name, args)
	if err != nil {
		return soakOutcome{err: &wire.Error{Message: err.Error()}}
	}
	ch := make(chan soakOutcome, 1)
	d.mu.Lock()
	d.calls[id] = ch
	d.mu.Unlock()
	for {
		s, swapped := d.socket()
		if err := s.send(ctx, f); err == nil {
			break
		}
		select { // the socket was dropped: send again on the next
		case <-swapped:
		case out := <-ch:
			return out
		case <-ctx.Done():
			return soakOutcome{err: &wire.Error{Message: "no answer: " + ctx.Err().Error()}}
		}
	}
	select {
	case out := <-ch:
		return out
	case <-ctx.Done():
		d.mu.Lock()
		delete(d.calls, id)
		d.mu.Unlock()
		return soakOutcome{err: &wire.Error{Message: "no answer: " + ctx.Err().Error()}}
	}
}

// callText calls a tool, with the nonce as the call's id, and returns its
// first text, or the failure.
func (d *soakDash) callText(ctx context.Context, server, tool, nonce string) (string, error) {
	args, _ := json.Marshal(nonceArgs{Nonce: nonce})
	out := d.do(ctx, nonce, wire.OpCallTool, wire.CallToolArgs{Server: server, Name: tool, Arguments: args, Call: nonce})
	if out.err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", errors.New(out.err.Message)
	}
	var res wire.CallToolResult
	if err := json.Unmarshal(out.result, &res); err != nil {
		return "", err
	}
	if res.IsError || len(res.Content) == 0 {
		return "", fmt.Errorf("tool error: %s", firstText(res.Content))
	}
	return firstText(res.Content), nil
}

func firstContent(cs []mcp.Content) mcp.Content {
	if len(cs) == 0 {
		return nil
	}
	return cs[0]
}

func firstText(cs []wire.Content) string {
	for _, c := range cs {
		if c.Text != "" {
			return c.Text
		}
	}
	return ""
}

// soakSample is the relay's memory at one moment.
type soakSample struct {
	at  time.Duration
	mem memStats
}

// runSoak runs the soak and prints its table; it fails when a call was
// lost or duplicated, a dashboard dropped, or a server is not ready at the
// end.
func runSoak(ctx context.Context, sc soakConfig) error {
	r, err := startRelay()
	if err != nil {
		return err
	}
	defer r.stop()
	tok, err := r.token()
	if err != nil {
		return err
	}
	key, err := r.agentKey()
	if err != nil {
		return err
	}
	ledger := newSoakLedger()

	logf("soak: %d servers", sc.servers)
	fixtures := make([]*fixture.Loopback, sc.servers)
	defer func() {
		for _, f := range fixtures {
			if f != nil {
				f.Stop()
			}
		}
	}()
	admin, err := dialSocket(ctx, r, tok)
	if err != nil {
		return err
	}
	defer admin.close()
	ids := make([]string, sc.servers)
	for i := range fixtures {
		fixtures[i] = soakServer(ledger)
		if err := fixtures[i].Start(); err != nil {
			return err
		}
		if ids[i], err = admin.addServer(ctx, fmt.Sprintf("soak%03d", i), fixtures[i].URL()); err != nil {
			return err
		}
	}
	if err := admin.waitReady(ctx, ids...); err != nil {
		return err
	}

	logf("soak: %d dashboards", sc.dashboards)
	b := &bench{relay: r, token: tok}
	socks, err := dialMany(ctx, b, sc.dashboards)
	defer func() {
		for _, s := range socks {
			if s != nil {
				s.c.CloseNow()
			}
		}
	}()
	if err != nil {
		return err
	}
	admin.close() // from here on, only the soak's dashboards
	runCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	var readers sync.WaitGroup
	var resyncs, dropped atomic.Int64 // dashboards that reconnected; that could not
	callers := make([]*soakDash, sc.callers)
	for i, s := range socks {
		if i < sc.callers {
			d := &soakDash{relay: r, token: tok, sock: s, swapped: make(chan struct{}), calls: map[string]chan soakOutcome{},
				states: map[string]wire.ServerState{}, changed: make(chan struct{}, 1), seen: map[string]bool{}, resyncs: &resyncs}
			for id, st := range s.states {
				d.states[id] = st
			}
			callers[i] = d
			continue
		}
		readers.Go(func() {
			for {
				if _, _, err := s.c.Read(runCtx); err == nil {
					continue
				}
				if runCtx.Err() != nil {
					return
				}
				resyncs.Add(1) // dropped as too slow: reconnect, as a tab does
				if s, err = dialSocket(runCtx, r, tok); err != nil {
					if runCtx.Err() == nil {
						dropped.Add(1)
					}
					return
				}
			}
		})
	}
	answerer := callers[0]
	var answeredMu sync.Mutex
	answered := map[string]bool{} // asks answered, by id
	answerer.onAsk = func(a wire.Ask) {
		nonce, ok := strings.CutPrefix(a.Message, soakAskPrefix)
		if !ok {
			return
		}
		answeredMu.Lock()
		first := !answered[a.ID]
		answered[a.ID] = true
		answeredMu.Unlock()
		if first {
			ledger.note(ledger.asked, nonce)
		}
		actx, cancel := context.WithTimeout(runCtx, soakCallTimeout)
		defer cancel()
		answerer.do(actx, "answer-"+a.ID, wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionAccept, Content: map[string]any{"nonce": nonce}})
	}
	for _, d := range callers {
		readers.Go(func() { d.run(runCtx) })
	}

	agents := make([]*mcp.ClientSession, sc.agents)
	for i := range agents {
		if agents[i], err = b.agent(ctx, key, "/mcp"); err != nil {
			return err
		}
		defer agents[i].Close()
	}

	logf("soak: load for %v", sc.duration)
	var calls sync.WaitGroup
	var nonces atomic.Int64
	nextNonce := func(kind string) string { return kind + strconv.FormatInt(nonces.Add(1), 10) }
	dashCall := func(tool string) {
		nonce := nextNonce(tool)
		d := callers[rand.IntN(len(callers))]
		server := ids[rand.IntN(len(ids))]
		ledger.sent.Add(1)
		calls.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, soakCallTimeout)
			defer cancel()
			start := time.Now()
			text, err := d.callText(cctx, server, tool, nonce)
			ledger.settle(nonce, text, err, time.Since(start))
		})
	}
	agentCall := func() {
		nonce := nextNonce("agent")
		a := agents[rand.IntN(len(agents))]
		name := ids[rand.IntN(len(ids))] + "__echo"
		ledger.sent.Add(1)
		calls.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, soakCallTimeout)
			defer cancel()
			start := time.Now()
			res, err := a.CallTool(cctx, &mcp.CallToolParams{Name: name, Arguments: nonceArgs{Nonce: nonce}})
			text := ""
			if err == nil {
				t, _ := firstContent(res.Content).(*mcp.TextContent)
				switch {
				case t == nil:
					err = errors.New("a result without text")
				case res.IsError:
					err = fmt.Errorf("tool error: %s", t.Text)
				default:
					text = t.Text
				}
			}
			ledger.settle(nonce, text, err, time.Since(start))
		})
	}

	start := time.Now()
	end := start.Add(sc.duration)
	var samples []soakSample
	m, err := r.mem()
	if err != nil {
		return err
	}
	samples = append(samples, soakSample{0, m})
	if err := r.heapProfile("soak-start"); err != nil {
		return err
	}
	tick := func(d time.Duration) *time.Ticker { return time.NewTicker(d) }
	dashT, agentT, askT, restartT, sampleT := tick(sc.dashEvery), tick(sc.agentEvery), tick(sc.askEvery), tick(sc.restart), tick(sc.sample)
	defer func() { dashT.Stop(); agentT.Stop(); askT.Stop(); restartT.Stop(); sampleT.Stop() }()
	restarts := 0
	for time.Now().Before(end) {
		select {
		case <-dashT.C:
			dashCall("echo")
		case <-askT.C:
			dashCall("confirm")
		case <-agentT.C:
			agentCall()
		case <-restartT.C:
			if time.Until(end) > soakSettle {
				f := fixtures[rand.IntN(len(fixtures))]
				f.Stop()
				if err := f.Start(); err != nil {
					return fmt.Errorf("restart a server: %w", err)
				}
				restarts++
			}
		case <-sampleT.C:
			m, err := r.mem()
			if err != nil {
				return err
			}
			samples = append(samples, soakSample{time.Since(start), m})
			logf("soak: %v: %d sent, %d ok, %d failed, %d lost; live heap %s, heap+stacks %s, %d goroutines",
				time.Since(start).Round(time.Second), ledger.sent.Load(), ledger.ok.Load(), ledger.failed.Load(), ledger.lost.Load(),
				kb(float64(m.HeapAlloc)), kb(float64(m.total())), m.Goroutines)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	calls.Wait()
	if err := r.heapProfile("soak-end"); err != nil {
		return err
	}

	// Every server ready at the end, as the dashboards see it.
	notReady := waitAllReady(ctx, callers[0], ids, soakSettle)
	stopReading()
	readers.Wait()

	runs, asks := ledger.duplicates()
	lostResults := ledger.runButUntaken()
	settled := ledger.ok.Load() + ledger.failed.Load() + ledger.lost.Load()
	liveSlope, memSlope, gorSlope := slopes(samples, sc.duration/5)
	first, last := samples[0].mem, samples[len(samples)-1].mem
	var failures []string
	ledger.failures.Range(func(k, v any) bool {
		failures = append(failures, fmt.Sprintf("%d × %s", v.(*atomic.Int64).Load(), k))
		return true
	})
	rows := []row{
		{figure: fmt.Sprintf("soak: %v, %d dashboards, %d servers, %d agent sessions, %d server restarts", sc.duration, sc.dashboards, sc.servers, sc.agents, restarts),
			switchboard: fmt.Sprintf("%d calls: %d answered right, %d failed, %d lost (no answer in %v); %d answered after more than %v",
				ledger.sent.Load(), ledger.ok.Load(), ledger.failed.Load(), ledger.lost.Load(), soakCallTimeout, ledger.late.Load(), soakSlowCall),
			reference: "failures: " + orNone(strings.Join(failures, "; ")), target: "0 lost", verdict: verdict(float64(ledger.lost.Load()+ledger.sent.Load()-settled), 0)},
		{figure: "soak: calls failed as not taken (their dashboard dropped) that a server ran all the same", switchboard: strconv.Itoa(lostResults),
			target: "0", verdict: verdict(float64(lostResults), 0)},
		{figure: "soak: duplicated (run twice by a server, asked twice)", switchboard: fmt.Sprintf("%d, %d", runs, asks),
			target: "0", verdict: verdict(float64(runs+asks), 0)},
		{figure: "soak: dashboards that could not reconnect", switchboard: strconv.FormatInt(dropped.Load(), 10), target: "0", verdict: verdict(float64(dropped.Load()), 0)},
		{figure: "soak: dashboards the relay dropped as too slow, which reconnected and resynced", switchboard: strconv.FormatInt(resyncs.Load(), 10),
			reference: "the harness reads every frame of every dashboard in one process"},
		{figure: "soak: servers not ready at the end", switchboard: strconv.Itoa(notReady), target: "0", verdict: verdict(float64(notReady), 0)},
		{figure: "soak: relay live heap after GC, slope after the first fifth", switchboard: fmt.Sprintf("%+.1f KB/min", liveSlope/1000),
			reference: fmt.Sprintf("%s at the start, %s at the end", kb(float64(first.HeapAlloc)), kb(float64(last.HeapAlloc)))},
		{figure: "soak: relay heap spans in use + stacks, slope after the first fifth", switchboard: fmt.Sprintf("%+.1f KB/min", memSlope/1000),
			reference: fmt.Sprintf("%s at the start, %s at the end (spans the runtime keeps for reuse included)", kb(float64(first.total())), kb(float64(last.total())))},
		{figure: "soak: relay goroutines, slope after the first fifth", switchboard: fmt.Sprintf("%+.2f /min", gorSlope),
			reference: fmt.Sprintf("%d at the start, %d at the end", first.Goroutines, last.Goroutines)},
	}
	printTable(os.Stdout, rows)
	for _, r := range rows {
		if r.verdict == "NOT met" {
			return errors.New("the soak failed: see the table")
		}
	}
	return nil
}

// waitAllReady waits up to limit for every server to be ready on d and
// returns how many are not.
func waitAllReady(ctx context.Context, d *soakDash, ids []string, limit time.Duration) int {
	deadline := time.Now().Add(limit)
	for {
		notReady := 0
		d.mu.Lock()
		for _, id := range ids {
			if d.states[id] != wire.StateReady {
				notReady++
			}
		}
		d.mu.Unlock()
		if notReady == 0 {
			return 0
		}
		select {
		case <-d.changed:
		case <-time.After(time.Until(deadline)):
			return notReady
		case <-ctx.Done():
			return notReady
		}
	}
}

// slopes fits lines to the samples after skip (least squares) and returns
// the slopes per minute of the live heap, of the heap spans in use and
// stacks (bytes), and of the goroutines.
func slopes(samples []soakSample, skip time.Duration) (live, inuse, goroutines float64) {
	var xs, ls, ms, gs []float64
	for _, s := range samples {
		if s.at >= skip {
			xs = append(xs, s.at.Minutes())
			ls = append(ls, float64(s.mem.HeapAlloc))
			ms = append(ms, float64(s.mem.total()))
			gs = append(gs, float64(s.mem.Goroutines))
		}
	}
	return slope(xs, ls), slope(xs, ms), slope(xs, gs)
}

func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / den
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
