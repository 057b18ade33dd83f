package main

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// dialParallel is how many dashboards connect at once.
const dialParallel = 16

// fanRoundTimeout bounds how long one change may take to reach everyone.
const fanRoundTimeout = 30 * time.Second

// fanRound is one change being waited for by every dashboard.
type fanRound struct {
	marker    []byte // the added tool's name, found in the delta's bytes
	times     []time.Time
	remaining atomic.Int64
	done      chan struct{}
}

// fanOutFigure connects many dashboards of one user, measures the memory
// each idle one costs the relay, then adds a tool to the user's server
// again and again and measures how long until every dashboard has the delta.
func fanOutFigure(ctx context.Context, cfg config) ([]row, error) {
	b, err := setUp(ctx, 0)
	if err != nil {
		return nil, err
	}
	defer b.close()
	before, err := b.relay.mem()
	if err != nil {
		return nil, err
	}

	n := cfg.dashboards
	dashes, err := dialMany(ctx, b, n)
	defer func() {
		for _, s := range dashes {
			if s != nil {
				s.c.CloseNow()
			}
		}
	}()
	if err != nil {
		return nil, fmt.Errorf("connect %d dashboards: %w", n, err)
	}
	after, err := b.relay.mem()
	if err != nil {
		return nil, err
	}
	perDash := (float64(after.total()) - float64(before.total())) / float64(n)

	var current atomic.Pointer[fanRound]
	var readers sync.WaitGroup
	rctx, stop := context.WithCancel(ctx)
	defer func() { stop(); readers.Wait() }()
	for i, s := range dashes {
		readers.Go(func() {
			for {
				_, msg, err := s.c.Read(rctx)
				if err != nil {
					return
				}
				r := current.Load()
				if r != nil && r.times[i].IsZero() && bytes.Contains(msg, r.marker) {
					r.times[i] = time.Now()
					if r.remaining.Add(-1) == 0 {
						close(r.done)
					}
				}
			}
		})
	}

	var all []time.Duration // per round: until the last dashboard had it
	var each []time.Duration
	for i := range cfg.fanRounds {
		r := &fanRound{marker: fmt.Appendf(nil, `"fan_%04d"`, i), times: make([]time.Time, n), done: make(chan struct{})}
		r.remaining.Store(int64(n))
		current.Store(r)
		start := time.Now()
		b.fixture.addTool(string(r.marker[1 : len(r.marker)-1]))
		select {
		case <-r.done:
		case <-time.After(fanRoundTimeout):
			return nil, fmt.Errorf("round %d: %d of %d dashboards without the delta after %v", i, r.remaining.Load(), n, fanRoundTimeout)
		}
		last := time.Duration(0)
		for _, t := range r.times {
			d := t.Sub(start)
			each = append(each, d)
			last = max(last, d)
		}
		all = append(all, last)
	}
	p99 := percentile(all, 99)
	return []row{
		{
			figure:      fmt.Sprintf("fan-out: one tool added, until all %d dashboards of the user have the delta, p99 over %d changes", n, cfg.fanRounds),
			switchboard: ms(p99),
			reference:   fmt.Sprintf("p50 %s; per dashboard p50 %s, p99 %s (includes the go-sdk server's 10 ms list_changed delay)", ms(median(all)), ms(median(each)), ms(percentile(each, 99))),
			target:      "< 100 ms",
			verdict:     verdict(float64(p99), float64(100*time.Millisecond)),
		},
		{
			figure:      fmt.Sprintf("memory per idle dashboard connection (%d dashboards)", n),
			switchboard: kb(perDash),
			reference:   "relay heap + stacks after GC",
		},
	}, nil
}

// dialMany connects n dashboards of b's user, dialParallel at a time.
func dialMany(ctx context.Context, b *bench, n int) ([]*socket, error) {
	dashes := make([]*socket, n)
	errs := make([]error, n)
	sem := make(chan struct{}, dialParallel)
	var wg sync.WaitGroup
	for i := range dashes {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			dashes[i], errs[i] = dialSocket(ctx, b.relay, b.token)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return dashes, err
		}
	}
	return dashes, nil
}
