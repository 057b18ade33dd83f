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
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
// returns what the program returned and logged, or why it ended; it never
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

// thrown is the error of a value the program threw, with its line.
func (p *program) thrown(v goja.Value) error {
	msg := "the program threw"
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return errors.New(msg + " nothing")
	}
	text := v.String()
	if o, ok := v.(*goja.Object); ok {
		if n := p.lines[o]; n > 0 {
			return fmt.Errorf("%s (line %d)", text, n)
		}
		if s := o.Get("stack"); s != nil && !goja.IsUndefined(s) {
			if m := lineOf.FindStringSubmatch(s.String()); m != nil {
				return fmt.Errorf("%s (line %s)", text, m[1])
			}
		}
	}
	return errors.New(text)
}

// install defines the servers' globals and console.
func (p *program) install(servers []Server) error {
	freeze, ok := goja.AssertFunction(p.vm.Get("Object").ToObject(p.vm).Get("freeze"))
	if !ok {
		return errors.New("the runtime has no Object.freeze")
	}
	if p.newError, ok = goja.AssertConstructor(p.vm.Get("Error")); !ok {
		return errors.New("the runtime has no Error")
	}
	global := p.vm.GlobalObject()
	for i, name := range Globals(servers) {
		obj := p.vm.NewObject()
		for _, t := range servers[i].Tools {
			if err := obj.Set(t.Name, p.method(t)); err != nil {
				return err
			}
		}
		if _, err := freeze(nil, obj); err != nil {
			return err
		}
		if err := global.DefineDataProperty(name, obj, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
			return err
		}
	}
	console := p.vm.NewObject()
	for _, level := range []string{"log", "info", "warn", "error", "debug"} {
		prefix := ""
		if level == "warn" || level == "error" {
			prefix = level + ": "
		}
		if err := console.Set(level, func(call goja.FunctionCall) goja.Value {
			p.print(prefix, call.Arguments)
			return goja.Undefined()
		}); err != nil {
			return err
		}
	}
	if _, err := freeze(nil, console); err != nil {
		return err
	}
	return global.DefineDataProperty("console", console, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
}

// print logs one console line.
func (p *program) print(prefix string, args []goja.Value) {
	if p.ended != nil {
		return
	}
	parts := make([]string, len(args))
	for i, a := range args {
		if s, ok := a.Export().(string); ok {
			parts[i] = s
			continue
		}
		b, err := writeJSON(a, p.limits.OutputBytes-p.logBytes, p.overOutput())
		var over *ending
		switch {
		case errors.As(err, &over):
			p.end(err)
			return
		case err != nil || string(b) == "null" && !goja.IsNull(a):
			parts[i] = a.String() // undefined, a function, a symbol, a cycle
		default:
			parts[i] = string(b)
		}
	}
	line := prefix + strings.Join(parts, " ")
	p.logBytes += len(line) + 1
	if p.logBytes > p.limits.OutputBytes {
		p.end(p.overOutput())
		return
	}
	p.log = append(p.log, line)
}

// catchable makes err an Error the program can catch, thrown by the call
// at line (0 when unknown).
func (p *program) catchable(err error, line int) goja.Value {
	o, jsErr := p.newError(nil, p.vm.ToValue(err.Error()))
	if jsErr != nil {
		return p.vm.NewGoError(err)
	}
	if line > 0 {
		if p.lines == nil {
			p.lines = map[*goja.Object]int{}
		}
		p.lines[o] = line
	}
	return o
}

// line is the line of the program that is running, 0 if none is.
func (p *program) line() int {
	for _, f := range p.vm.CaptureCallStack(4, nil) {
		if f.SrcName() == scriptName {
			return f.Position().Line
		}
	}
	return 0
}

// toJS is a JSON-decoded Go value as plain JavaScript objects and arrays,
// of own properties as JSON.parse makes them: no setter of the program's
// runs, and a "__proto__" key is a property.
func (p *program) toJS(v any) goja.Value {
	switch v := v.(type) {
	case map[string]any:
		o := p.vm.NewObject()
		for k, x := range v {
			o.DefineDataProperty(k, p.toJS(x), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
		}
		return o
	case []any:
		items := make([]any, len(v))
		for i, x := range v {
			items[i] = p.toJS(x)
		}
		return p.vm.NewArray(items...)
	}
	return p.vm.ToValue(v)
}

// resultValue is what a program gets of a tool's result: its structured
// content, its text, or its content; an error result is an error.
func resultValue(res *mcp.CallToolResult) (any, error) {
	if res == nil {
		return nil, errors.New("the tool returned nothing")
	}
	var texts []string
	allText := true
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		} else {
			allText = false
		}
	}
	if res.IsError {
		msg := strings.Join(texts, "\n")
		if msg == "" {
			msg = "the tool failed"
		}
		return nil, errors.New(msg)
	}
	if res.StructuredContent != nil {
		return decoded(res.StructuredContent)
	}
	if allText {
		return strings.Join(texts, "\n"), nil
	}
	return decoded(res.Content)
}

// decoded is v through JSON, as plain maps, slices and scalars.
func decoded(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("the tool's result could not be read: %v", err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("the tool's result could not be read: %v", err)
	}
	return out, nil
}
