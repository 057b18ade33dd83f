package conformance

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/netguard"
)

// waitFor bounds every run of these tests.
const waitFor = 20 * time.Second

// serve runs handler on a 127.0.0.1 port until the test ends and returns its
// URL.
func serve(t *testing.T, handler http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// mcpServer serves s over Streamable HTTP.
func mcpServer(t *testing.T, s *mcp.Server) string {
	t.Helper()
	return serve(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
}

// run runs scenario against url with a loopback-allowing netguard client.
func run(t *testing.T, ctx context.Context, scenario, url string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, waitFor)
	defer cancel()
	return Run(ctx, Config{
		Scenario:   scenario,
		ServerURL:  url,
		HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0),
		TempDir:    t.TempDir(),
	})
}

type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

func TestToolsCallCallsAddNumbersWithTwoNumbers(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "add", Version: "1.0.0"}, nil)
	got := make(chan addArgs, 1)
	mcp.AddTool(s, &mcp.Tool{Name: "add_numbers"}, func(_ context.Context, _ *mcp.CallToolRequest, a addArgs) (*mcp.CallToolResult, any, error) {
		got <- a
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sum"}}}, nil, nil
	})
	if err := run(t, t.Context(), "tools_call", mcpServer(t, s)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	select {
	case a := <-got:
		if a.A+a.B != 8 {
			t.Errorf("add_numbers got %+v, want a and b summing to 8", a)
		}
	default:
		t.Fatal("add_numbers was not called")
	}
}

func TestInitializeConnectsAndCallsNoTool(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "1.0.0"}, nil)
	called := make(chan string, 1)
	mcp.AddTool(s, &mcp.Tool{Name: "add_numbers"}, func(context.Context, *mcp.CallToolRequest, addArgs) (*mcp.CallToolResult, any, error) {
		called <- "add_numbers"
		return &mcp.CallToolResult{}, nil, nil
	})
	if err := run(t, t.Context(), "initialize", mcpServer(t, s)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	select {
	case name := <-called:
		t.Errorf("initialize called the tool %q", name)
	default:
	}
}

func TestRunFailsWhenTheToolReportsAnError(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "broken", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "add_numbers"}, func(context.Context, *mcp.CallToolRequest, addArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "overflow"}}}, nil, nil
	})
	err := run(t, t.Context(), "tools_call", mcpServer(t, s))
	if err == nil || !strings.Contains(err.Error(), "overflow") {
		t.Fatalf("Run = %v, want the tool's error text", err)
	}
}

func TestRunFailsWhenTheScenarioToolIsMissing(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "other", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "subtract"}, func(context.Context, *mcp.CallToolRequest, addArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	err := run(t, t.Context(), "tools_call", mcpServer(t, s))
	if err == nil || !strings.Contains(err.Error(), "add_numbers") {
		t.Fatalf("Run = %v, want an error naming the missing tool", err)
	}
}

func TestRunFailsOnTheFirstFailedConnection(t *testing.T) {
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	err := run(t, t.Context(), "initialize", url)
	if err == nil || !strings.Contains(err.Error(), "connection failed") {
		t.Fatalf("Run = %v, want a connection failure", err)
	}
}

func TestRunEndsWithItsContext(t *testing.T) {
	url := serve(t, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		// Reading the body lets the server notice the client hanging up.
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done() // never answers
	}))
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	err := run(t, ctx, "initialize", url)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run = %v, want the context's deadline", err)
	}
}

func TestRunRejectsUnknownScenariosWithoutConnecting(t *testing.T) {
	requests := make(chan struct{}, 1)
	url := serve(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		select {
		case requests <- struct{}{}:
		default:
		}
	}))
	for _, name := range []string{"", "tools-call", "auth/client-credentials", "auth/cross-app-access"} {
		if err := run(t, t.Context(), name, url); !errors.Is(err, ErrUnknownScenario) {
			t.Errorf("Run(%q) = %v, want ErrUnknownScenario", name, err)
		}
	}
	select {
	case <-requests:
		t.Error("an unknown scenario sent a request")
	default:
	}
}

func TestRunRefusesAnInvalidServerURL(t *testing.T) {
	if err := run(t, t.Context(), "initialize", "ftp://127.0.0.1/mcp"); err == nil {
		t.Fatal("Run accepted an ftp URL")
	}
}
