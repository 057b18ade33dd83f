package conformance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// serverID names the one server of a run in logs.
const serverID = "conformance"

// ErrUnknownScenario is returned by [Run] for a scenario it does not know.
var ErrUnknownScenario = errors.New("unknown conformance scenario")

// Config is one run of one scenario.
type Config struct {
	Scenario  string // the suite's MCP_CONFORMANCE_SCENARIO
	ServerURL string // the mock server's URL, the last argument
	Context   Context
	// HTTPClient carries every request of the connection and of its OAuth
	// client (required): a netguard client that allows loopback, where the
	// suite's servers listen.
	HTTPClient *http.Client
	// TempDir holds the run's throwaway OAuth store, removed at the end;
	// "" means the system's temporary directory.
	TempDir string
	Logger  *slog.Logger // nil discards
}

// errRunOver stops the run's helpers when [Run] returns.
var errRunOver = errors.New("the run is over")

// Run runs one scenario against its mock server as the relay would serve
// it: [conn.Start] with the relay's OAuth client (an authorization is
// approved headlessly whenever the connection waits for one) and form
// elicitations accepted with their defaults. It waits until the connection
// is ready, calls the scenario's tool and closes. It fails on the first
// failed connection attempt, on a failed approval, on a failed or erroring
// tool call, and when ctx ends first.
func Run(ctx context.Context, cfg Config) error {
	sc, ok := lookup(cfg.Scenario)
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownScenario, cfg.Scenario)
	}
	if cfg.HTTPClient == nil {
		return errors.New("conformance: an HTTP client is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	url, err := urlnorm.Normalize(cfg.ServerURL)
	if err != nil {
		return fmt.Errorf("server url: %w", err)
	}
	h, err := newHeadless(ctx, cfg, sc, url)
	if err != nil {
		return err
	}
	defer h.close()

	ctx, cancel := context.WithCancelCause(ctx)
	w := newWatcher()
	c := conn.Start(conn.Config{
		ID:         serverID,
		Name:       cfg.Scenario,
		URL:        url,
		HTTPClient: cfg.HTTPClient,
		Logger:     cfg.Logger,
		Asker:      conn.AcceptDefaults{},
		Modes:      conn.AskModes{Form: true},
		Auth:       h.manager.For(user, serverID, url),
	}, w.emit)
	defer c.Close()
	approver := make(chan struct{})
	go func() {
		defer close(approver)
		cancel(h.approveWhenAsked(ctx, w))
	}()
	defer func() {
		cancel(errRunOver)
		<-approver
	}()

	ready, err := awaitReady(ctx, w)
	if err != nil {
		return err
	}
	cfg.Logger.Info("connected", "protocol", ready.Init.ProtocolVersion, "tools", len(ready.Lists.Tools))
	if sc.tool == "" {
		return nil
	}
	res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: sc.tool, Arguments: sc.args}, nil)
	if err != nil {
		if cause := context.Cause(ctx); cause != nil {
			err = cause // why the call was cut short
		}
		return fmt.Errorf("call tool %q: %w", sc.tool, err)
	}
	if res.IsError {
		return fmt.Errorf("call tool %q: the tool reported an error: %s", sc.tool, resultText(res))
	}
	cfg.Logger.Info("tool called", "tool", sc.tool, "result", resultText(res))
	return nil
}

// awaitReady waits until the connection is ready and returns its state. A
// failed attempt ends the wait: the suite's servers do not come back.
func awaitReady(ctx context.Context, w *watcher) (conn.State, error) {
	seen := 0
	for {
		s, seq, err := w.next(ctx, seen)
		if err != nil {
			return conn.State{}, fmt.Errorf("waiting for the connection: %w", err)
		}
		seen = seq
		switch s.State {
		case wire.StateReady:
			return s, nil
		case wire.StateFailed:
			return conn.State{}, fmt.Errorf("connection failed: %s", s.Error)
		}
	}
}

// resultText joins the text blocks of a tool result, for messages.
func resultText(res *mcp.CallToolResult) string {
	var out string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			if out != "" {
				out += " "
			}
			out += t.Text
		}
	}
	return out
}
