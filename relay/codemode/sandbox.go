package codemode

import (
	"errors"
	"strings"

	"github.com/dop251/goja"
)

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
			if err := obj.DefineDataProperty(t.Name, p.vm.ToValue(p.method(t)), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
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
