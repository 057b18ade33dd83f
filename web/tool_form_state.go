package web

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/schema"
)

// formEntry is what a person entered at one place of a tool's form.
type formEntry struct {
	text  string // a text, number or JSON input; a select's option index; "true"/"false"
	null  bool   // the "null" box of a nullable field is ticked
	alt   int    // the chosen alternative of a choice
	items []int  // the keys of a list's items, in order
	next  int    // the key of a list's next item
}

// toolForm is the view state of a tool's argument form: the entries by
// place. A place is a JSON Pointer of the value, except that a list's items
// are named by a key that stays with the item ("#3") and a choice's
// alternatives by their index ("~1"), so that each keeps what was typed.
type toolForm struct {
	root    *schema.Input
	entries map[string]*formEntry
}

// newToolForm starts a form on value (the defaults when has is false).
func newToolForm(root *schema.Input, value any, has bool) *toolForm {
	f := &toolForm{root: root, entries: map[string]*formEntry{}}
	f.fill(root, "", value, has, !has)
	return f
}

// entry returns the entry at place, made empty when new.
func (f *toolForm) entry(place string) *formEntry {
	e := f.entries[place]
	if e == nil {
		e = &formEntry{}
		f.entries[place] = e
	}
	return e
}

// fill sets the entries under place from v; with defaults, a node without a
// value starts from its schema's default.
func (f *toolForm) fill(n *schema.Input, place string, v any, has, defaults bool) {
	if !has && defaults && n.Default != nil {
		has = json.Unmarshal(n.Default, &v) == nil
	}
	e := f.entry(place)
	if has && v == nil && n.Nullable {
		e.null = true
		return
	}
	switch n.Kind {
	case schema.InputField:
		if has {
			e.text = leafText(v)
		}
	case schema.InputEnum:
		for i, o := range n.Options {
			var want any
			if has && json.Unmarshal(o.Value, &want) == nil && jsonEqual(want, v) {
				e.text = strconv.Itoa(i)
			}
		}
	case schema.InputObject:
		obj, _ := v.(map[string]any)
		for _, p := range n.Props {
			pv, ok := obj[p.Name]
			f.fill(p.Input, place+"/"+schema.PointerToken(p.Name), pv, ok, defaults)
		}
	case schema.InputArray:
		list, _ := v.([]any)
		for _, item := range list {
			f.fill(n.Items, place+"/#"+strconv.Itoa(f.addItem(e)), item, true, defaults)
		}
	case schema.InputChoice:
		e.alt = 0
		for i, alt := range n.Alts {
			if has && len(alt.Validate(v)) == 0 {
				e.alt = i
				break
			}
		}
		f.fill(n.Alts[e.alt], place+"/~"+strconv.Itoa(e.alt), v, has, defaults)
	case schema.InputJSON:
		if has {
			b, _ := json.MarshalIndent(v, "", "  ") // a decoded value marshals
			e.text = string(b)
		}
	}
}

// addItem appends an item to a list entry and returns its key.
func (f *toolForm) addItem(e *formEntry) int {
	k := e.next
	e.next++
	e.items = append(e.items, k)
	return k
}

// leafText is a primitive value as its input shows it.
func leafText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// built is the outcome of reading a form: the value, what could not be
// read as its type (by place), and the place of each value path.
type built struct {
	syntax map[string]string // place → why its text is not a value
	places map[string]string // value path → place
}

// value reads the whole form: the arguments, and what could not be read.
func (f *toolForm) value() (map[string]any, built) {
	b := built{syntax: map[string]string{}, places: map[string]string{}}
	v, _ := f.build(f.root, "", "", true, &b)
	obj, ok := v.(map[string]any)
	if !ok {
		obj = map[string]any{}
	}
	return obj, b
}

// build reads the value under place; has is false for an empty optional
// field, which is left out. Text that is not a value of its type is sent
// as text (the server is the judge) and noted in b.syntax.
func (f *toolForm) build(n *schema.Input, place, path string, required bool, b *built) (any, bool) {
	b.places[path] = place
	e := f.entry(place)
	if e.null && n.Nullable {
		return nil, true
	}
	switch n.Kind {
	case schema.InputField:
		return leafValue(n.Field.Kind, e.text, place, b)
	case schema.InputEnum:
		i, err := strconv.Atoi(e.text)
		if err != nil || i < 0 || i >= len(n.Options) {
			return nil, false
		}
		var v any
		json.Unmarshal(n.Options[i].Value, &v) // an option is JSON the parser read
		return v, true
	case schema.InputObject:
		obj := map[string]any{}
		for _, p := range n.Props {
			if pv, ok := f.build(p.Input, place+"/"+schema.PointerToken(p.Name), path+"/"+schema.PointerToken(p.Name), p.Required, b); ok {
				obj[p.Name] = pv
			}
		}
		return obj, len(obj) > 0 || required
	case schema.InputArray:
		list := []any{}
		for _, k := range e.items {
			// The path is the item's place in the value sent, which an
			// empty item (left out) does not take.
			item, ok := f.build(n.Items, place+"/#"+strconv.Itoa(k), path+"/"+strconv.Itoa(len(list)), true, b)
			if ok {
				list = append(list, item)
			}
		}
		return list, len(list) > 0 || required
	case schema.InputChoice:
		alt := min(max(e.alt, 0), len(n.Alts)-1)
		return f.build(n.Alts[alt], place+"/~"+strconv.Itoa(alt), path, required, b)
	}
	text := strings.TrimSpace(e.text)
	if text == "" {
		return nil, false
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		b.syntax[place] = "is not valid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
		return text, true
	}
	return v, true
}

// jsonNumber is the syntax of a JSON number: what a number field takes.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// leafValue reads a primitive's text; "" is no value.
func leafValue(kind schema.Kind, text, place string, b *built) (any, bool) {
	switch kind {
	case schema.Number, schema.Integer:
		t := strings.TrimSpace(text)
		if t == "" {
			return nil, false
		}
		if !jsonNumber.MatchString(t) {
			b.syntax[place] = "must be a number"
			return t, true
		}
		return json.Number(t), true // as typed: a float64 would round a long integer
	case schema.Boolean:
		switch text {
		case "true":
			return true, true
		case "false":
			return false, true
		}
		return nil, false
	}
	if text == "" {
		return nil, false
	}
	return text, true
}

// problems are what is wrong with the form's value, by place: what could
// not be read, then the schema's checks.
func (f *toolForm) problems(v map[string]any, b built) map[string]string {
	out := map[string]string{}
	for place, msg := range b.syntax {
		out[place] = msg
	}
	for _, p := range f.root.Validate(v) {
		place, ok := b.places[p.Path]
		if !ok {
			place = p.Path
		}
		if _, taken := out[place]; !taken {
			out[place] = p.Reason
		}
	}
	return out
}

// jsonEqual compares two decoded JSON values.
func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
