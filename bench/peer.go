package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// peerName names the aggregating gateway the agent's call is compared
// with: mcp-hub as bench/peer/package-lock.json pins it.
const peerName = "mcp-hub 4.2.1"

// loopbackShim, preloaded into mcp-hub, binds its listener to 127.0.0.1 and
// prints the port (mcp-hub listens on every interface); the e2e tests'
// npm servers use it too.
const loopbackShim = "e2e/everything/loopback.cjs"

// peerStartTimeout bounds mcp-hub's start: it first tries to fetch its
// marketplace catalogue from the web, and offline that fails after a few
// seconds.
const peerStartTimeout = 60 * time.Second

// peerHub is mcp-hub, a child process on a loopback port, in front of the
// MCP servers it was configured with.
type peerHub struct {
	cmd  *exec.Cmd
	home string
	url  string // its aggregate endpoint (HTTP+SSE, the only transport it serves there)
}

// startPeer runs mcp-hub (its cli.js at path) with servers (name →
// Streamable HTTP URL) in a fresh home directory and returns once it has
// connected to every one of them.
func startPeer(path string, servers map[string]string) (*peerHub, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("mcp-hub is not installed (npm ci --prefix bench/peer): %w", err)
	}
	shim, err := filepath.Abs(loopbackShim)
	if err != nil {
		return nil, err
	}
	home, err := os.MkdirTemp("", "switchboard-bench-peer-")
	if err != nil {
		return nil, err
	}
	h := &peerHub{home: home}
	if err := h.start(path, shim, servers); err != nil {
		h.stop()
		return nil, err
	}
	return h, nil
}

func (h *peerHub) start(path, shim string, servers map[string]string) error {
	cfg := map[string]map[string]string{}
	for name, url := range servers {
		cfg[name] = map[string]string{"url": url}
	}
	b, err := json.Marshal(map[string]any{"mcpServers": cfg})
	if err != nil {
		return err
	}
	config := filepath.Join(h.home, "mcp-servers.json")
	if err := os.WriteFile(config, b, 0o600); err != nil {
		return err
	}
	ports, err := freePorts(1) // mcp-hub refuses port 0
	if err != nil {
		return err
	}
	port := strconv.Itoa(ports[0])
	h.cmd = exec.Command("node", "--require", shim, path, "--port", port, "--config", config)
	h.cmd.Env = append(os.Environ(), "HOME="+h.home,
		"XDG_CONFIG_HOME="+filepath.Join(h.home, "config"),
		"XDG_DATA_HOME="+filepath.Join(h.home, "data"),
		"XDG_STATE_HOME="+filepath.Join(h.home, "state"))
	out, err := h.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	errOut, err := h.cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := h.cmd.Start(); err != nil {
		return fmt.Errorf("start mcp-hub: %w", err)
	}
	listening := make(chan error, 1)
	go func() {
		s := bufio.NewScanner(errOut)
		err := errors.New("mcp-hub exited before it listened")
		for s.Scan() {
			if s.Text() == "switchboard-listening "+port {
				err = nil
				break
			}
		}
		listening <- err
		io.Copy(io.Discard, errOut)
	}()
	connected := make(chan error, 1)
	go func() {
		pending := map[string]bool{}
		for name := range servers {
			pending["'"+name+"' MCP server connected"] = true
		}
		s := bufio.NewScanner(out)
		s.Buffer(nil, 1<<20)
		for len(pending) > 0 && s.Scan() {
			var line struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(s.Bytes(), &line) == nil {
				delete(pending, line.Message)
			}
		}
		if len(pending) > 0 {
			connected <- errors.New("mcp-hub exited before it connected to its servers")
		} else {
			connected <- nil
		}
		io.Copy(io.Discard, out)
	}()
	timeout := time.After(peerStartTimeout)
	for _, step := range []chan error{listening, connected} {
		select {
		case err := <-step:
			if err != nil {
				return err
			}
		case <-timeout:
			return fmt.Errorf("mcp-hub did not listen and connect to its servers within %v", peerStartTimeout)
		}
	}
	h.url = "http://127.0.0.1:" + port + "/mcp"
	return nil
}

// connect opens an agent's session on mcp-hub's aggregate endpoint over
// the HTTP transport tr and checks that it offers tool (server__tool).
func (h *peerHub) connect(ctx context.Context, tool string, tr http.RoundTripper) (*mcp.ClientSession, error) {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-agent", Version: "1"}, nil).Connect(ctx,
		&mcp.SSEClientTransport{Endpoint: h.url, HTTPClient: &http.Client{Transport: tr}}, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", peerName, err)
	}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			cs.Close()
			return nil, fmt.Errorf("%s: tools/list: %w", peerName, err)
		}
		if t.Name == tool {
			return cs, nil
		}
	}
	cs.Close()
	return nil, fmt.Errorf("%s does not offer %s", peerName, tool)
}

func (h *peerHub) stop() {
	if h.cmd != nil && h.cmd.Process != nil {
		h.cmd.Process.Kill()
		h.cmd.Wait()
	}
	os.RemoveAll(h.home)
}

// The names both gateways give the servers behind them.
const (
	peerFixture = "fixture"
	peerDemo    = "demo"
)

// peerTarget is the most the relay's agent call may cost against mcp-hub's.
const peerTarget = 0.5

// peerFigure compares an agent's call through the relay's /mcp with the
// same call through mcp-hub, both in front of the fixture and the demo
// server: one agent, alternating; then many agents at once.
func peerFigure(ctx context.Context, cfg config) ([]row, error) {
	b, err := setUp(ctx, 0)
	if err != nil {
		return nil, err
	}
	defer b.close()
	demoURL, stopDemo, err := b.addDemo(ctx, peerDemo)
	if err != nil {
		return nil, err
	}
	defer stopDemo()
	// No dashboard is open during the figure, as no UI is on mcp-hub: one
	// that stopped reading would cost the relay frames until it is dropped
	// as too slow, at a moment that varies from run to run.
	b.dash.close()
	b.dash = nil
	hub, err := startPeer(cfg.peer, map[string]string{peerFixture: b.fixture.URL(), peerDemo: demoURL})
	if err != nil {
		return nil, err
	}
	defer hub.stop()
	relayTool, hubTool := b.serverID+"__"+toolTick, peerFixture+"__"+toolTick
	key, err := b.relay.agentKey()
	if err != nil {
		return nil, err
	}
	agent, err := b.agent(ctx, key, "/mcp")
	if err != nil {
		return nil, err
	}
	defer agent.Close()
	peer, err := hub.connect(ctx, hubTool, http.DefaultTransport)
	if err != nil {
		return nil, err
	}
	defer peer.Close()
	rr, pr, err := alternate(cfg.calls,
		func() (time.Duration, error) { return timedCall(ctx, agent, relayTool) },
		func() (time.Duration, error) { return timedCall(ctx, peer, hubTool) })
	if err != nil {
		return nil, err
	}
	const figure = "agent call through an aggregating gateway's endpoint (the fixture and the demo server behind it)"
	rows := []row{
		ratioRow(figure+", p50", median(rr), median(pr), peerName, peerTarget),
		ratioRow(figure+", p99", percentile(rr, 99), percentile(pr, 99), peerName, 0),
	}
	more, err := throughput(ctx, cfg, b, hub, relayTool, hubTool)
	return append(rows, more...), err
}

// throughput runs cfg.agents agents on each gateway, each its own session
// (on the relay each its own key too: a key may hold 32 sessions) and its
// own HTTP connections, as agents in processes of their own have (net/http's
// default transport keeps two idle connections a host), calling tick back
// to back for cfg.loadFor a gateway, in halves: the relay, mcp-hub,
// mcp-hub, the relay, so that a change in the machine's load during the run
// falls on both alike.
func throughput(ctx context.Context, cfg config, b *bench, hub *peerHub, relayTool, hubTool string) ([]row, error) {
	var relayAgents, hubAgents []*mcp.ClientSession
	defer func() {
		for _, cs := range append(relayAgents, hubAgents...) {
			cs.Close()
		}
	}()
	for range cfg.agents {
		key, err := b.relay.agentKey()
		if err != nil {
			return nil, err
		}
		cs, err := connectAgentVia(ctx, b.relay, key, "/mcp", http.DefaultTransport.(*http.Transport).Clone())
		if err != nil {
			return nil, err
		}
		relayAgents = append(relayAgents, cs)
		if cs, err = hub.connect(ctx, hubTool, http.DefaultTransport.(*http.Transport).Clone()); err != nil {
			return nil, err
		}
		hubAgents = append(hubAgents, cs)
	}
	relay := callLoad{pid: b.relay.cmd.Process.Pid}
	peer := callLoad{pid: hub.cmd.Process.Pid}
	half := cfg.loadFor / 2
	relay.run(ctx, relayAgents, relayTool, half)
	peer.run(ctx, hubAgents, hubTool, half)
	peer.run(ctx, hubAgents, hubTool, half)
	relay.run(ctx, relayAgents, relayTool, half)
	for _, l := range []*callLoad{&relay, &peer} {
		if len(l.calls) == 0 {
			return nil, fmt.Errorf("no call succeeded under load: %w", l.firstErr)
		}
	}
	cores := runtime.NumCPU()
	rate := func(l callLoad) float64 { return float64(len(l.calls)) / l.elapsed.Seconds() / float64(cores) }
	figure := fmt.Sprintf("throughput: %d agents (a session each) calling tick back to back for %v a gateway", cfg.agents, cfg.loadFor)
	rows := []row{{
		figure:      figure + fmt.Sprintf(", calls a second per core (%d cores, shared by the gateway, the servers and the agents)", cores),
		switchboard: fmt.Sprintf("%.0f calls/s%s", rate(relay), relay.failed()),
		reference:   fmt.Sprintf("%.0f calls/s %s%s", rate(peer), peerName, peer.failed()),
		ratio:       fmt.Sprintf("%.2fx", rate(relay)/rate(peer)),
	}, ratioRow(figure+", a call's p99", percentile(relay.calls, 99), percentile(peer.calls, 99),
		fmt.Sprintf("%s (p50 %s against %s)", peerName, ms(median(relay.calls)), ms(median(peer.calls))), 0),
	}
	if relay.cpu > 0 && peer.cpu > 0 {
		perCall := func(l callLoad) time.Duration { return l.cpu / time.Duration(len(l.calls)) }
		rows = append(rows, ratioRow(figure+", the gateway process's CPU time a call", perCall(relay), perCall(peer), peerName, 0))
	}
	return rows, nil
}

// callLoad is what agents calling back to back through the gateway process
// pid got: the durations of the calls that succeeded, the failures, the
// time the runs took and the CPU time the gateway used meanwhile (none
// where the system does not say).
type callLoad struct {
	pid      int
	calls    []time.Duration
	errs     int
	firstErr error
	elapsed  time.Duration
	cpu      time.Duration
}

// run has every session call tool back to back until d has passed, and
// adds what they got; it returns once the last call has ended.
func (l *callLoad) run(ctx context.Context, sessions []*mcp.ClientSession, tool string, d time.Duration) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	cpuBefore, cpuOK := cpuTime(l.pid)
	start := time.Now()
	deadline := start.Add(d)
	for _, cs := range sessions {
		wg.Go(func() {
			var calls []time.Duration
			var errs int
			var first error
			for time.Now().Before(deadline) {
				d, err := timedCall(ctx, cs, tool)
				if err != nil {
					errs, first = errs+1, cmp.Or(first, err)
					continue
				}
				calls = append(calls, d)
			}
			mu.Lock()
			defer mu.Unlock()
			l.calls, l.errs, l.firstErr = append(l.calls, calls...), l.errs+errs, cmp.Or(l.firstErr, first)
		})
	}
	wg.Wait()
	l.elapsed += time.Since(start)
	if cpuAfter, ok := cpuTime(l.pid); ok && cpuOK {
		l.cpu += cpuAfter - cpuBefore
	}
}

// userHZ is the unit of the process times in /proc: 100 a second on Linux.
const userHZ = 100

// cpuTime is the CPU time, user and system, process pid has used so far,
// read from /proc/PID/stat; ok is false where there is no such file.
func cpuTime(pid int) (d time.Duration, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	_, rest, _ := strings.Cut(string(b), ") ") // after the command's name, which may hold spaces
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // fields 14 and 15 of the line
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * time.Second / userHZ, true
}

// failed says how many calls failed, and the first error, when any did.
func (l callLoad) failed() string {
	if l.errs == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d calls failed: %v)", l.errs, l.firstErr)
}
