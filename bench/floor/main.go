// Command floor measures what an extra hop costs at least on this machine,
// for reading the relay's call figures of `make bench`: a go-sdk client
// calls a loopback tool directly, through a minimal go-sdk proxy (a server
// whose one tool calls the fixture with a go-sdk client; no keys, no log),
// and through a minimal WebSocket relay (a message in, the same go-sdk call,
// the result out), alternating. The proxy and the relay run in a child
// process, as the relay does in the bench.
//
//	go run ./bench/floor [-calls 1000]
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/bench/hop"
)

// childArg makes this binary the child serving the proxy and the relay.
const childArg = "hop"

var emptyObject = map[string]any{"type": "object"}

func main() {
	if len(os.Args) == 3 && os.Args[1] == childArg {
		if err := serveHop(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "floor child:", err)
			os.Exit(1)
		}
		return
	}
	calls := flag.Int("calls", 1000, "calls per path")
	flag.Parse()
	if err := run(*calls); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

// listen serves h on a loopback port and returns its base URL.
func listen(h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go (&http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}).Serve(ln)
	return "http://" + ln.Addr().String(), nil
}

func mcpHandler(s *mcp.Server) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

// serveHop serves the proxy (/mcp) and the relay (/ws) of the fixture at
// upstream, prints its base URL, and serves until stdin closes.
func serveHop(upstream string) error {
	h, closeUp, err := hop.Handler(context.Background(), upstream)
	if err != nil {
		return err
	}
	defer closeUp()
	base, err := listen(h)
	if err != nil {
		return err
	}
	fmt.Println(base)
	bufio.NewReader(os.Stdin).ReadString(0) // until the parent closes stdin
	return nil
}

func run(calls int) error {
	ctx := context.Background()
	fixture := mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "1"}, nil)
	fixture.AddTool(&mcp.Tool{Name: hop.Tool, InputSchema: emptyObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "tick"}}}, nil
	})
	fx, err := listen(mcpHandler(fixture))
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, childArg, fx)
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Wait()
	defer stdin.Close()
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		return fmt.Errorf("the child did not start")
	}
	base := sc.Text()

	client := mcp.NewClient(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
	direct, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: fx}, nil)
	if err != nil {
		return err
	}
	defer direct.Close()
	proxied, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		return err
	}
	defer proxied.Close()
	ws, _, err := websocket.Dial(ctx, "ws"+base[len("http"):]+"/ws", nil)
	if err != nil {
		return err
	}
	defer ws.CloseNow()

	call := func(cs *mcp.ClientSession) (time.Duration, error) {
		start := time.Now()
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tick", Arguments: map[string]any{}})
		return time.Since(start), err
	}
	relayed := func() (time.Duration, error) { return hop.Relayed(ctx, ws) }
	const warm = 10
	var d, p, w []time.Duration
	for i := range warm + calls {
		a, err := call(direct)
		if err != nil {
			return err
		}
		b, err := call(proxied)
		if err != nil {
			return err
		}
		c, err := relayed()
		if err != nil {
			return err
		}
		if i >= warm {
			d, p, w = append(d, a), append(p, b), append(w, c)
		}
	}
	med := func(ds []time.Duration) time.Duration { slices.Sort(ds); return ds[len(ds)/2] }
	md, mp, mw := med(d), med(p), med(w)
	fmt.Printf("direct go-sdk call, p50                        %v\n", md)
	fmt.Printf("through a minimal go-sdk proxy, p50            %v (%.2fx)\n", mp, float64(mp)/float64(md))
	fmt.Printf("through a minimal WebSocket-to-go-sdk relay, p50 %v (%.2fx)\n", mw, float64(mw)/float64(md))
	return nil
}
