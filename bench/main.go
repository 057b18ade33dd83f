package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// config is what a run measures and how much.
type config struct {
	short        bool
	rounds       int // browser rounds per side
	calls        int // tool calls per side and path
	dashboards   int // fan-out: dashboards of one user
	fanRounds    int // fan-out: changes measured
	serverCounts []int
	tools        int           // tools of the server whose delta is measured
	chatRounds   int           // chat: first tokens measured per path
	streamFor    time.Duration // chat: how long the stream is measured
	streamAfter  time.Duration // chat: how long the answer streams before it is measured
	kills        int           // replicas: owners killed, one failover each
	idleUsers    int           // replicas: users one replica owns for the memory row
	agents       int           // peer: agents calling at once for the throughput rows
	loadFor      time.Duration // peer: how long they call through each gateway
	chromium     string
	inspector    string // the Inspector launcher script
	peer         string // mcp-hub's cli.js
}

// figure is one measurement; it returns its table rows.
type figure struct {
	name string
	run  func(context.Context, config) ([]row, error)
}

var figures = []figure{
	{"render", firstRenderFigure},
	{"click", clickFigure},
	{"relay", relayCallFigure},
	{"gateway", gatewayFigure},
	{"peer", peerFigure},
	{"fanout", fanOutFigure},
	{"memory", memoryFigure},
	{"delta", deltaFigure},
	{"chat", chatFigure},
	{"code", codeModeFigure},
	{"replicas", replicasFigure},
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == hopArg {
		if err := runHop(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "hop:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == childArg {
		opts, err := parseChildArgs(os.Args[2:])
		if err == nil {
			err = runChild(opts)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "relay:", err)
			os.Exit(1)
		}
		return
	}
	var cfg config
	only := flag.String("only", "", "comma-separated figures to run ("+names()+"); all by default")
	flag.BoolVar(&cfg.short, "short", false, "one round of everything at small sizes: checks that the harness runs")
	flag.StringVar(&cfg.chromium, "chromium", envOr("CHROMIUM", "/usr/bin/chromium"), "Chromium binary")
	flag.StringVar(&cfg.inspector, "inspector", "bench/inspector/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js", "MCP Inspector's launcher (npm ci --prefix bench/inspector)")
	flag.StringVar(&cfg.peer, "peer", "bench/peer/node_modules/mcp-hub/dist/cli.js", "mcp-hub, the aggregating gateway of the peer figure (npm ci --prefix bench/peer)")
	flag.StringVar(&profileDir, "profile", "", "write a CPU profile of the relay during each figure into this directory")
	flag.DurationVar(&cfg.streamAfter, "chat-after", 0, "chat: let the answer stream this long before its window is measured (a long answer)")
	calls := flag.Int("calls", 0, "tool calls per side and path (default 400, 20 with -short)")
	soak := soakConfig{
		callers: 20, agents: 8, dashEvery: 100 * time.Millisecond, agentEvery: 200 * time.Millisecond,
		askEvery: 2 * time.Second, restart: 20 * time.Second, sample: 10 * time.Second,
	}
	flag.DurationVar(&soak.duration, "soak", 0, "instead of the figures, run the soak this long (make soak)")
	flag.IntVar(&soak.dashboards, "soak-dashboards", 1000, "the soak's dashboards")
	flag.IntVar(&soak.servers, "soak-servers", 100, "the soak's servers")
	flag.Parse()
	if soak.duration > 0 {
		if err := runSoak(context.Background(), soak); err != nil {
			fmt.Fprintln(os.Stderr, "soak:", err)
			os.Exit(1)
		}
		return
	}
	if cfg.short {
		cfg.rounds, cfg.calls, cfg.dashboards, cfg.fanRounds, cfg.serverCounts, cfg.tools = 1, 20, 20, 3, []int{10}, 1000
		cfg.chatRounds, cfg.streamFor = 2, time.Second
		cfg.kills, cfg.idleUsers = 3, 10
		cfg.agents, cfg.loadFor = 4, time.Second
	} else {
		cfg.rounds, cfg.calls, cfg.dashboards, cfg.fanRounds, cfg.serverCounts, cfg.tools = 5, 400, 1000, 50, []int{200, 1000}, 1000
		cfg.chatRounds, cfg.streamFor = 40, 5*time.Second
		cfg.kills, cfg.idleUsers = 20, 200
		cfg.agents, cfg.loadFor = 100, 30*time.Second
	}

	if *calls > 0 {
		cfg.calls = *calls
	}
	ctx := context.Background()
	var rows []row
	failed := false
	start := time.Now()
	for _, f := range figures {
		if *only != "" && !contains(strings.Split(*only, ","), f.name) {
			continue
		}
		fmt.Fprintf(os.Stderr, "bench: %s…\n", f.name)
		t := time.Now()
		rs, err := f.run(ctx, cfg)
		if err != nil {
			failed = true
			rs = append(rs, row{figure: f.name, switchboard: "error: " + err.Error()})
		}
		fmt.Fprintf(os.Stderr, "bench: %s took %v\n", f.name, time.Since(t).Round(time.Millisecond))
		rows = append(rows, rs...)
	}
	fmt.Printf("Measured %s on %s/%s, %d CPUs (%s), in %v%s.\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpuModel(), time.Since(start).Round(time.Second), map[bool]string{true: ", short mode (sizes too small to compare)"}[cfg.short])
	printTable(os.Stdout, rows)
	if failed {
		os.Exit(1)
	}
}

func names() string {
	var n []string
	for _, f := range figures {
		n = append(n, f.name)
	}
	return strings.Join(n, ", ")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if strings.TrimSpace(v) == s {
			return true
		}
	}
	return false
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// cpuModel names the processor, from /proc/cpuinfo where there is one.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}
