package main

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// warmCalls are made on each path before measuring.
const warmCalls = 10

// timedCall times one go-sdk call of the tool name, without arguments.
func timedCall(ctx context.Context, cs *mcp.ClientSession, name string) (time.Duration, error) {
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	d := time.Since(start)
	if err == nil && res.IsError {
		err = fmt.Errorf("%s failed: %v", name, res.Content)
	}
	return d, err
}

// directCall times one go-sdk call of tick straight to the fixture.
func directCall(ctx context.Context, cs *mcp.ClientSession) (time.Duration, error) {
	return timedCall(ctx, cs, toolTick)
}

// alternate times n calls of first and of second, in turn, after
// warmCalls of each that do not count, and returns both series.
func alternate(n int, first, second func() (time.Duration, error)) (fr, sr []time.Duration, err error) {
	for i := range warmCalls + n {
		f, err := first()
		if err != nil {
			return nil, nil, err
		}
		s, err := second()
		if err != nil {
			return nil, nil, err
		}
		if i >= warmCalls {
			fr, sr = append(fr, f), append(sr, s)
		}
	}
	return fr, sr, nil
}

// relayCallFigure compares a tool call through the relay's WebSocket (op
// frame out to result frame in, as a dashboard would, without a browser)
// with a direct go-sdk call of the same fixture, alternating.
func relayCallFigure(ctx context.Context, cfg config) ([]row, error) {
	b, err := setUp(ctx, 0)
	if err != nil {
		return nil, err
	}
	defer b.close()
	direct, err := b.fixture.directClient(ctx)
	if err != nil {
		return nil, err
	}
	defer direct.Close()

	viaRelay := func() (time.Duration, error) {
		start := time.Now()
		f, err := b.dash.callTool(ctx, b.serverID, toolTick)
		d := time.Since(start)
		if err == nil && f.Type != wire.TypeResult {
			err = fmt.Errorf("tick through the relay: %s frame", f.Type)
		}
		return d, err
	}
	return againstDirect(ctx, cfg, b, direct, "relay", "tool call, relay alone (Go WebSocket op → result)", 1.25, viaRelay)
}

// againstDirect times other against direct calls, alternating, with a CPU
// profile of the relay named profile when asked for, and returns the
// figure's p50 row (with its target) and p99 row.
func againstDirect(ctx context.Context, cfg config, b *bench, direct *mcp.ClientSession, profile, figure string, target float64, other func() (time.Duration, error)) ([]row, error) {
	wait := b.relay.profile(profile, 5*time.Second)
	defer wait()
	dr, or, err := alternate(cfg.calls, func() (time.Duration, error) { return directCall(ctx, direct) }, other)
	if err != nil {
		return nil, err
	}
	return []row{
		ratioRow(figure+", p50", median(or), median(dr), "direct go-sdk", target),
		ratioRow(figure+", p99", percentile(or, 99), percentile(dr, 99), "direct go-sdk", 0),
	}, nil
}
