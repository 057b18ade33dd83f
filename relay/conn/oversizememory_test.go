package conn

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// bigServerEnv makes the test binary serve [TestBigResultServerProcess].
const bigServerEnv = "SWITCHBOARD_TEST_BIG_RESULT_SERVER"

// fiveMB is the size of the text the big result server's tool answers.
const fiveMB = 5_000_000

// liveHeap is the heap the last collection found live.
func liveHeap() uint64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// oversizeMemoryBudget is how much the relay's live heap may grow while 40 calls
// each refuse a 5 MB result at the default limit: what a call may hold of
// an answer is bounded by the result limit, read as it streams.
const oversizeMemoryBudget = 40 * 2 * wire.MaxResultBytes

// TestBigResultServerProcess is not a test: run by
// [TestOversizedResultsKeepMemoryFlat] in a process of its own, it serves a
// go-sdk server whose tool "five_mb" answers 5 MB, prints its URL and serves
// until its standard input closes. Its memory is not the relay's.
func TestBigResultServerProcess(t *testing.T) {
	if os.Getenv(bigServerEnv) == "" {
		t.Skip("run by TestOversizedResultsKeepMemoryFlat")
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "big"}, nil)
	text := strings.Repeat("z", fiveMB)
	server.AddTool(&mcp.Tool{Name: "five_mb", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	addEcho(server)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go http.Serve(ln, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	os.Stdout.WriteString("http://" + ln.Addr().String() + "/mcp\n")
	io.Copy(io.Discard, os.Stdin)
}

// Forty concurrent calls of a tool answering 5 MB, over the default result
// limit, each fail as too large while the relay holds no more than the
// limit of each answer; the connection then answers the next call. The
// server runs in a process of its own so that only the relay's memory is
// measured.
func TestOversizedResultsKeepMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 200 MB through loopback")
	}
	url := startBigResultServer(t)
	cfg := testConfig(url)
	cfg.HealthInterval = time.Minute // a probe is not what this measures
	c, r := start(t, cfg)
	r.AwaitState(wire.StateReady)

	// The heap that GC found live, not the heap in use: that also holds
	// garbage not yet collected, which a loaded machine's slower collector
	// lets grow past the heap's goal without any call holding more.
	runtime.GC()
	base := liveHeap()
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if live := liveHeap(); live > peak.Load() {
				peak.Store(live)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()

	var wg sync.WaitGroup
	errs := make([]error, 40)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.CallTool(context.Background(), toolCall("five_mb", nil), nil)
		}()
	}
	wg.Wait()
	close(done)
	<-sampled

	rise := int64(peak.Load()) - int64(base)
	t.Logf("the live heap rose by %d MB over %d MB during 40 refused 5 MB results", rise>>20, base>>20)
	for i, err := range errs {
		var we *Error
		if !errors.As(err, &we) || we.Code != TooLarge {
			t.Fatalf("call %d: %v, want too large", i, err)
		}
	}
	if rise > oversizeMemoryBudget {
		t.Errorf("the heap rose by %d MB, over %d MB", rise>>20, oversizeMemoryBudget>>20)
	}
	res, err := c.CallTool(context.Background(), toolCall("echo", json.RawMessage(`{"text":"still here"}`)), nil)
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "still here" {
		t.Fatalf("the next call: %v", err)
	}
}

// startBigResultServer runs [TestBigResultServerProcess] and returns its URL.
func startBigResultServer(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBigResultServerProcess$")
	cmd.Env = append(os.Environ(), bigServerEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://") {
		t.Fatalf("the server process said %q: %v", line, err)
	}
	return strings.TrimSpace(line)
}
