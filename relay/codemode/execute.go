package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
)

// scriptName names the program in its stack traces.
const scriptName = "program.js"

// lineOf finds the first line of the program in a stack trace, and
// syntaxAt the line and message of goja's syntax errors.
var (
	lineOf   = regexp.MustCompile(`program\.js:(\d+):`)
	syntaxAt = regexp.MustCompile(`Line (\d+):\d+ (.*)$`)
)

// ending is why a program was ended from outside its code.
type ending struct{ msg string }

func (e *ending) Error() string { return e.msg }

// Execute runs code, the body of an async function, with one global per
// server (see [Globals]) whose methods call its tools, and console. It
// returns when the program's promise has settled and the calls it made
// have ended: what the program returned and logged, or why it ended. Its
// wall time is the sooner of ctx's deadline and limits.Wall. It never
// panics.
func Execute(ctx context.Context, servers []Server, code string, limits Limits) (res Result) {
	l := limits.WithDefaults()
	wall := l.Wall
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wall {
		wall = max(time.Until(dl), 0).Round(time.Millisecond)
	}
	p := &program{vm: goja.New(), limits: l, done: make(chan callDone, l.Concurrent),
		wall: &ending{fmt.Sprintf("the program ran longer than %v", wall)}}
	ctx, cancel := context.WithTimeoutCause(ctx, wall, p.wall)
	defer cancel()
	p.ctx = ctx
	defer func() {
		if r := recover(); r != nil {
			res = Result{Value: json.RawMessage("null"), Error: fmt.Sprintf("the program failed: %v", r), Log: p.log, Calls: p.calls}
		}
	}()
	stop := p.watch(cancel)
	defer stop()
	p.vm.SetMaxCallStackSize(l.StackDepth)
	if err := p.install(servers); err != nil {
		return p.failed(err)
	}
	v, err := p.vm.RunScript(scriptName, "(async () => {"+code+"\n})()")
	if err != nil {
		return p.failed(err)
	}
	promise, ok := v.Export().(*goja.Promise)
	if !ok {
		return p.failed(errors.New("the program did not run as an async function"))
	}
	if err := p.loop(promise); err != nil {
		return p.failed(err)
	}
	if promise.State() == goja.PromiseStateRejected {
		return p.failed(p.thrown(promise.Result()))
	}
	value, err := p.jsonOf(promise.Result())
	if err != nil {
		return p.failed(err)
	}
	if len(value)+p.logBytes > l.OutputBytes {
		return p.failed(p.overOutput())
	}
	return Result{Value: value, Log: p.log, Calls: p.calls}
}

// program is one run of Execute.
type program struct {
	ctx    context.Context // ends with the program; the calls run under it
	vm     *goja.Runtime
	limits Limits
	wall   *ending // the error of its wall time, the sooner of ctx's deadline and limits.Wall

	done     chan callDone
	inFlight int
	waiting  []*pendingCall // calls beyond limits.Concurrent, in order
	calls    int

	newError goja.Constructor     // the runtime's Error, before the program could replace it
	lines    map[*goja.Object]int // the line of the call each tool error rejects

	log      []string
	logBytes int
	ended    error                  // a limit the program passed, on the runtime's goroutine
	outside  atomic.Pointer[ending] // a limit the watchdog saw passed
}

// failed is the result of a program that ended with err.
func (p *program) failed(err error) Result {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if e, ok := ie.Value().(error); ok {
			err = e
		}
	}
	var so *goja.StackOverflowError
	msg := err.Error()
	switch {
	case errors.As(err, &so):
		msg = fmt.Sprintf("the program recursed deeper than %d calls", p.limits.StackDepth)
	case strings.HasPrefix(msg, "SyntaxError: "):
		if m := syntaxAt.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("syntax error: %s (line %s)", m[2], m[1])
		} else {
			msg = "syntax error: " + strings.TrimPrefix(msg, "SyntaxError: ")
		}
	}
	return Result{Value: json.RawMessage("null"), Log: p.log, Error: msg, Calls: p.calls}
}

// overOutput is the error of a program whose output passed the limit.
func (p *program) overOutput() error {
	return &ending{fmt.Sprintf("the output is over %d bytes", p.limits.OutputBytes)}
}

// end stops the program for err: the runtime at its next instruction, the
// loop at its next turn.
func (p *program) end(err error) {
	if p.ended == nil {
		p.ended = err
	}
	p.vm.Interrupt(err)
}

// thrown is the error of a value the program threw: an Error's text with
// its line, else the value as JSON.
func (p *program) thrown(v goja.Value) error {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return errors.New("the program threw nothing")
	}
	if o, ok := v.(*goja.Object); ok {
		if n := p.lines[o]; n > 0 {
			return fmt.Errorf("%s (line %d)", v.String(), n)
		}
		if s := o.Get("stack"); s != nil && !goja.IsUndefined(s) {
			if m := lineOf.FindStringSubmatch(s.String()); m != nil {
				return fmt.Errorf("%s (line %s)", v.String(), m[1])
			}
			return errors.New(v.String())
		}
	}
	const most = 1 << 10
	b, err := writeJSON(v, most, errors.New("too long"))
	if err != nil || len(b) > most {
		return errors.New("the program threw a value that is not JSON")
	}
	return errors.New("the program threw " + string(b))
}
