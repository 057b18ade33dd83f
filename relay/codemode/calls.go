package codemode

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dop251/goja"
)

// Tool calls. A method of a server's global returns a promise at once; the
// call runs on a goroutine of its own, at most limits.Concurrent at a time
// (later ones wait their turn), and its end comes back to the loop, which
// settles the promise on the runtime's goroutine.

// pendingCall is a call the program made, not yet settled.
type pendingCall struct {
	tool    Tool
	args    json.RawMessage
	line    int // of the program, where it called
	resolve func(any) error
	reject  func(any) error
}

// callDone is the end of a call.
type callDone struct {
	call  *pendingCall
	value any
	err   error
}

// method is tool t as a method of its server's global.
func (p *program) method(t Tool) func(goja.FunctionCall) goja.Value {
	return func(fc goja.FunctionCall) goja.Value {
		promise, resolve, reject := p.vm.NewPromise()
		if p.calls == p.limits.Calls {
			p.end(&ending{fmt.Sprintf("the program made more than %d tool calls", p.limits.Calls)})
			return p.vm.ToValue(promise)
		}
		p.calls++
		line := p.line()
		args, err := argsOf(fc.Argument(0))
		if err != nil {
			reject(p.catchable(fmt.Errorf("%s: %v", t.Name, err), line))
			return p.vm.ToValue(promise)
		}
		c := &pendingCall{tool: t, args: args, line: line, resolve: resolve, reject: reject}
		if p.inFlight >= p.limits.Concurrent {
			p.waiting = append(p.waiting, c)
		} else {
			p.start(c)
		}
		return p.vm.ToValue(promise)
	}
}

// argsOf is a call's argument as a JSON object; none is {}.
func argsOf(v goja.Value) (json.RawMessage, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return json.RawMessage("{}"), nil
	}
	m, ok := v.Export().(map[string]any)
	if !ok {
		return nil, errors.New("the argument must be an object of the tool's arguments")
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("the arguments are not JSON: %v", err)
	}
	return b, nil
}

// start runs c on a goroutine of its own.
func (p *program) start(c *pendingCall) {
	p.inFlight++
	go func() {
		var d callDone
		defer func() {
			if r := recover(); r != nil {
				d = callDone{err: fmt.Errorf("the tool failed: %v", r)}
			}
			d.call = c
			p.done <- d
		}()
		res, err := c.tool.Call(p.ctx, c.args)
		if err == nil {
			d.value, err = resultValue(res)
		}
		d.err = err
	}()
}

// startWaiting starts the calls waiting for a free place.
func (p *program) startWaiting() {
	for len(p.waiting) > 0 && p.inFlight < p.limits.Concurrent {
		c := p.waiting[0]
		p.waiting = p.waiting[1:]
		p.start(c)
	}
}

// settle settles the promise of an ended call; the program's code that
// awaited it runs now. Its error is the runtime's: an interrupt.
func (p *program) settle(d callDone) error {
	if d.err != nil {
		return d.call.reject(p.catchable(fmt.Errorf("%s: %v", d.call.tool.Name, d.err), d.call.line))
	}
	return d.call.resolve(p.toJS(d.value))
}
