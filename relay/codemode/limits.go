package codemode

import (
	"fmt"
	"runtime/metrics"
	"time"
)

// Limits bound a program. A zero field takes its default.
type Limits struct {
	Wall        time.Duration // default 30 s
	Calls       int           // tool calls, default 100
	Concurrent  int           // tool calls in flight at once, default 8
	OutputBytes int           // the return value's JSON and the log, default 256 KiB
	HeapBytes   int64         // growth of the process's heap while it runs, default 256 MiB
	StackDepth  int           // JavaScript call depth, default 1000
}

// Defaults of [Limits].
const (
	DefaultWall        = 30 * time.Second
	DefaultCalls       = 100
	DefaultConcurrent  = 8
	DefaultOutputBytes = 256 << 10
	DefaultHeapBytes   = 256 << 20
	DefaultStackDepth  = 1000
)

// WithDefaults returns l with its zero fields set to their defaults.
func (l Limits) WithDefaults() Limits {
	if l.Wall <= 0 {
		l.Wall = DefaultWall
	}
	if l.Calls <= 0 {
		l.Calls = DefaultCalls
	}
	if l.Concurrent <= 0 {
		l.Concurrent = DefaultConcurrent
	}
	if l.OutputBytes <= 0 {
		l.OutputBytes = DefaultOutputBytes
	}
	if l.HeapBytes <= 0 {
		l.HeapBytes = DefaultHeapBytes
	}
	if l.StackDepth <= 0 {
		l.StackDepth = DefaultStackDepth
	}
	return l
}

// heapMetric is the bytes of the process's live and unswept heap objects.
const heapMetric = "/memory/classes/heap/objects:bytes"

// watchEvery is how often the watchdog looks at the heap and the clock.
const watchEvery = 10 * time.Millisecond

// watch interrupts the program when its context ends or the heap grew by
// more than the limit while it runs; cancel ends the calls then. It
// returns the function that stops watching.
func (p *program) watch(cancel func()) (stop func()) {
	sample := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	quit := make(chan struct{})
	ended := make(chan struct{})
	over := &ending{"the program used more than " + bytesText(p.limits.HeapBytes) + " of memory"}
	go func() {
		defer close(ended)
		t := time.NewTicker(watchEvery)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-p.ctx.Done():
				p.vm.Interrupt(p.cause())
				return
			case <-t.C:
				metrics.Read(sample)
				if now := sample[0].Value.Uint64(); now > base && int64(now-base) > p.limits.HeapBytes {
					p.outside.Store(over)
					p.vm.Interrupt(over)
					cancel()
					return
				}
			}
		}
	}()
	return func() {
		close(quit)
		<-ended
		cancel()
	}
}

// bytesText is n bytes in MiB when whole, else in bytes.
func bytesText(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
