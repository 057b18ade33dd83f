package main

import (
	"context"
	"fmt"
)

// The target of the memory per idle MCP connection: at most idleTarget
// bytes with idleServers servers.
const (
	idleTarget  = 100_000
	idleServers = 1000
)

// memoryFigure registers loopback servers with a relay in steps (200, then
// up to 1,000), waits until all are ready, and reports the relay's heap and
// stacks per connection, from a baseline taken before the first; the step
// of idleServers says whether it meets idleTarget. With -profile it writes the relay's heap and goroutines at each step.
func memoryFigure(ctx context.Context, cfg config) ([]row, error) {
	r, err := startRelay()
	if err != nil {
		return nil, err
	}
	defer r.stop()
	tok, err := r.token()
	if err != nil {
		return nil, err
	}
	dash, err := dialSocket(ctx, r, tok)
	if err != nil {
		return nil, err
	}
	defer dash.close()
	base, err := r.mem()
	if err != nil {
		return nil, err
	}
	if err := r.heapProfile("memory-0"); err != nil {
		return nil, err
	}

	var fixtures []*mcpFixture
	defer func() {
		for _, f := range fixtures {
			f.Stop()
		}
	}()
	var ids []string
	var rows []row
	for _, n := range cfg.serverCounts {
		for len(ids) < n {
			f, err := startFixture(0)
			if err != nil {
				return nil, err
			}
			fixtures = append(fixtures, f)
			id, err := dash.addServer(ctx, fmt.Sprintf("s%04d", len(ids)), f.URL())
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		if err := dash.waitReady(ctx, ids...); err != nil {
			return nil, err
		}
		m, err := r.mem()
		if err != nil {
			return nil, err
		}
		if err := r.heapProfile(fmt.Sprintf("memory-%d", n)); err != nil {
			return nil, err
		}
		if err := r.goroutineProfile(fmt.Sprintf("memory-%d", n)); err != nil {
			return nil, err
		}
		per := (float64(m.total()) - float64(base.total())) / float64(n)
		rw := row{
			figure:      fmt.Sprintf("memory per idle MCP connection, %d loopback servers", n),
			switchboard: kb(per),
			reference:   fmt.Sprintf("relay heap + stacks after GC; %.1f goroutines per connection", float64(m.Goroutines-base.Goroutines)/float64(n)),
		}
		if n == idleServers {
			rw.target, rw.verdict = fmt.Sprintf("≤ %s", kb(idleTarget)), verdict(per, idleTarget)
		}
		rows = append(rows, rw)
	}
	return rows, nil
}
