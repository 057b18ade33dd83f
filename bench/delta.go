package main

import (
	"bytes"
	"context"
	"fmt"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// changedTool is the filler tool the delta figure changes.
const changedTool = 500

// deltaFigure changes one tool of a server with many and compares the delta
// frame a dashboard gets with the snapshot frame a new dashboard gets.
func deltaFigure(ctx context.Context, cfg config) ([]row, error) {
	b, err := setUp(ctx, cfg.tools)
	if err != nil {
		return nil, err
	}
	defer b.close()
	name := []byte(fmt.Sprintf(`"tool_%04d"`, changedTool))
	b.fixture.changeTool(changedTool, 1)
	var delta []byte
	for delta == nil {
		msg, f, err := b.dash.read(ctx)
		if err != nil {
			return nil, err
		}
		if f.Type == wire.TypeDelta && bytes.Contains(msg, name) {
			delta = msg
		}
	}
	fresh, err := dialSocket(ctx, b.relay, b.token)
	if err != nil {
		return nil, err
	}
	defer fresh.close()
	return []row{{
		figure:      fmt.Sprintf("delta frame when one tool of %d changes", cfg.tools+1),
		switchboard: kb(float64(len(delta))),
		reference:   kb(float64(len(fresh.snap))) + " full snapshot frame",
		ratio:       fmt.Sprintf("%.4fx", float64(len(delta))/float64(len(fresh.snap))),
		target:      "< 2 KB",
		verdict:     verdict(float64(len(delta)), 2000),
	}}, nil
}
