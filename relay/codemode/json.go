package codemode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// maxJSONDepth bounds the nesting of a value written as JSON.
const maxJSONDepth = 1000

// jsonWriter writes a program's value as JSON the way JSON.stringify
// would, but in Go, so that nothing the program replaced (JSON, toJSON,
// the prototypes) takes part: its keys in their order, undefined,
// functions and symbols left out of objects and null in arrays, NaN and
// the infinities null, a BigInt its digits. Getters run, as they would.
type jsonWriter struct {
	buf   bytes.Buffer
	enc   *json.Encoder
	limit int                  // bytes; past it the writing fails with over
	over  error                // the error of passing limit
	seen  map[*goja.Object]int // the objects being written, to find cycles
}

// jsonFailure is why a value could not be written; the writer panics
// with it to unwind, and write recovers it.
type jsonFailure struct{ error }

// writeJSON is v as JSON, at most limit bytes, or why it is not: over
// past the limit, an error for a cycle or too deep a nesting. A
// JavaScript exception (a getter that threw) or interrupt goes on up.
func writeJSON(v goja.Value, limit int, over error) (out []byte, err error) {
	w := &jsonWriter{limit: limit, over: over, seen: map[*goja.Object]int{}}
	w.enc = json.NewEncoder(&w.buf)
	w.enc.SetEscapeHTML(false)
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(jsonFailure)
			if !ok {
				panic(r)
			}
			out, err = nil, f.error
		}
	}()
	if !w.value(v, 0) {
		w.buf.WriteString("null")
	}
	return w.buf.Bytes(), nil
}

// value writes v; it reports false, having written nothing, for what JSON
// leaves out.
func (w *jsonWriter) value(v goja.Value, depth int) bool {
	if w.buf.Len() > w.limit {
		panic(jsonFailure{w.over})
	}
	if v == nil || goja.IsUndefined(v) {
		return false
	}
	if goja.IsNull(v) {
		w.buf.WriteString("null")
		return true
	}
	if _, ok := v.(*goja.Symbol); ok {
		return false
	}
	o, ok := v.(*goja.Object)
	if !ok {
		w.scalar(v.Export())
		return true
	}
	if _, ok := goja.AssertFunction(o); ok {
		return false
	}
	if w.seen[o] > 0 {
		panic(jsonFailure{errors.New("the value holds itself")})
	}
	if depth >= maxJSONDepth {
		panic(jsonFailure{fmt.Errorf("the value is nested deeper than %d", maxJSONDepth)})
	}
	w.seen[o]++
	defer func() { w.seen[o]-- }()
	switch o.ClassName() {
	case "Array":
		w.array(o, depth)
	case "Date", "String", "Number", "Boolean":
		w.scalar(o.Export())
	default:
		w.object(o, depth)
	}
	return true
}

// scalar writes a primitive's exported Go value.
func (w *jsonWriter) scalar(x any) {
	if f, ok := x.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		x = nil
	}
	if w.enc.Encode(x) != nil {
		w.buf.WriteString("null")
		return
	}
	w.buf.Truncate(w.buf.Len() - 1) // Encode's newline
}

func (w *jsonWriter) array(o *goja.Object, depth int) {
	n := o.Get("length").ToInteger()
	w.buf.WriteByte('[')
	for i := int64(0); i < n; i++ {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		if !w.value(o.Get(strconv.FormatInt(i, 10)), depth+1) {
			w.buf.WriteString("null")
		}
	}
	w.buf.WriteByte(']')
}

func (w *jsonWriter) object(o *goja.Object, depth int) {
	w.buf.WriteByte('{')
	first := true
	for _, k := range o.Keys() {
		mark := w.buf.Len()
		if !first {
			w.buf.WriteByte(',')
		}
		w.scalar(k)
		w.buf.WriteByte(':')
		if !w.value(o.Get(k), depth+1) {
			w.buf.Truncate(mark)
			continue
		}
		first = false
	}
	w.buf.WriteByte('}')
}

// jsonOf is the program's return value as JSON, at most the output left.
func (p *program) jsonOf(v goja.Value) (out json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			if ie, ok := r.(*goja.InterruptedError); ok {
				out, err = nil, ie
				return
			}
			msg := fmt.Sprint(r)
			if ex, ok := r.(*goja.Exception); ok {
				msg, _, _ = strings.Cut(ex.Error(), " at ")
			}
			out, err = nil, fmt.Errorf("the program returned a value that could not be read: %s", msg)
		}
	}()
	b, err := writeJSON(v, p.limits.OutputBytes-p.logBytes, p.overOutput())
	var over *ending
	if err != nil && !errors.As(err, &over) {
		err = fmt.Errorf("the program returned a value that is not JSON: %v", err)
	}
	return b, err
}
