package main

import (
	"context"
	"fmt"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/bench/hop"
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
// with the same call through the floor's minimal WebSocket relay (package
// hop), and with a direct go-sdk call of the same fixture, in turn.
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
	h, err := startHop(b.fixture.URL())
	if err != nil {
		return nil, err
	}
	defer h.stop()
	ws, _, err := websocket.Dial(ctx, "ws://"+h.hello.Addr+"/ws", nil)
	if err != nil {
		return nil, fmt.Errorf("the floor's relay: %w", err)
	}
	defer ws.CloseNow()
	viaFloor := func() (time.Duration, error) { return hop.Relayed(ctx, ws) }
	viaRelay := func() (time.Duration, error) {
		start := time.Now()
		f, err := b.dash.callTool(ctx, b.serverID, toolTick)
		d := time.Since(start)
		if err == nil && f.Type != wire.TypeResult {
			err = fmt.Errorf("tick through the relay: %s frame", f.Type)
		}
		return d, err
	}
	return againstFloor(ctx, cfg, b, direct, "relay", "tool call, relay alone (Go WebSocket op → result)", "minimal WebSocket relay", viaFloor, viaRelay)
}

// floorTarget is the most the relay's call may cost against the floor's
// same hop, measured in the same run.
const floorTarget = 1.25

// againstFloor times other against the floor's same hop and a direct call,
// in turn, with a CPU profile of the relay named profile when asked for,
// and returns the figure's p50 row against the floor (with its target),
// its p99 row, and its p50 against the direct call.
func againstFloor(ctx context.Context, cfg config, b *bench, direct *mcp.ClientSession, profile, figure, floorName string, floor, other func() (time.Duration, error)) ([]row, error) {
	wait := b.relay.profile(profile, 5*time.Second)
	defer wait()
	var dr, fr, or []time.Duration
	for i := range warmCalls + cfg.calls {
		d, err := directCall(ctx, direct)
		if err != nil {
			return nil, err
		}
		f, err := floor()
		if err != nil {
			return nil, fmt.Errorf("through the %s: %w", floorName, err)
		}
		o, err := other()
		if err != nil {
			return nil, err
		}
		if i >= warmCalls {
			dr, fr, or = append(dr, d), append(fr, f), append(or, o)
		}
	}
	floorRef := floorName + " (floor)"
	return []row{
		ratioRow(figure+", p50", median(or), median(fr), floorRef, floorTarget),
		ratioRow(figure+", p99", percentile(or, 99), percentile(fr, 99), floorRef, 0),
		ratioRow(figure+", p50 against a direct call", median(or), median(dr), "direct go-sdk", 0),
	}, nil
}
