package codemode

import (
	"context"
	"errors"

	"github.com/dop251/goja"
)

// loop settles the tool calls' promises on the runtime's goroutine until
// the program's promise settles and no call it made is left running.
func (p *program) loop(promise *goja.Promise) error {
	for promise.State() == goja.PromiseStatePending || p.inFlight > 0 {
		if p.ended != nil {
			return p.ended
		}
		if p.inFlight == 0 {
			return errors.New("the program waits for a promise that nothing will settle")
		}
		select {
		case d := <-p.done:
			p.inFlight--
			p.startWaiting()
			if err := p.settle(d); err != nil {
				return err
			}
		case <-p.ctx.Done():
			if p.ended != nil {
				return p.ended
			}
			return p.cause()
		}
	}
	return p.ended
}

// cause says why the program's context ended.
func (p *program) cause() error {
	if e := p.outside.Load(); e != nil {
		return e
	}
	if errors.Is(context.Cause(p.ctx), context.DeadlineExceeded) {
		return p.wall // the caller's deadline came first
	}
	if e, ok := context.Cause(p.ctx).(*ending); ok {
		return e
	}
	return &ending{"the program was cancelled"}
}
