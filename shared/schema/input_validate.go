package schema

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// Problem is one place where a value does not fit a form: Path is a JSON
// Pointer into the value ("" for the whole value), Reason a short message.
type Problem struct {
	Path, Reason string
}

// Validate checks a value (decoded from JSON: map[string]any, []any,
// string, float64, bool, nil) against the node and returns one problem per
// place at fault, in document order; nil means the value fits. Extra
// properties are allowed, as JSON Schema allows them by default.
func (n *Input) Validate(v any) []Problem {
	var out []Problem
	n.validate(v, "", &out)
	return out
}

func (n *Input) validate(v any, path string, out *[]Problem) {
	add := func(reason string) { *out = append(*out, Problem{Path: path, Reason: reason}) }
	if v == nil {
		if !n.Nullable && n.Kind != InputJSON {
			add("must not be null")
		}
		return
	}
	switch n.Kind {
	case InputField:
		if s, ok := v.(string); ok && s == "" && n.Field.Kind != String {
			add("must be " + n.Field.Kind.String())
			return
		}
		msg := n.Field.check(v)
		if s, ok := v.(string); ok && s == "" && n.Field.Kind == String {
			// An elicitation form reads "" as not answered; in tool
			// arguments it is a value, with the string's rules.
			msg = n.Field.checkString(s)
		}
		if msg != "" {
			add(msg)
		}
	case InputEnum:
		for _, o := range n.Options {
			var want any
			if json.Unmarshal(o.Value, &want) == nil && reflect.DeepEqual(want, v) {
				return
			}
		}
		add(n.enumChoices())
	case InputObject:
		obj, ok := v.(map[string]any)
		if !ok {
			add("must be an object")
			return
		}
		for _, p := range n.Props {
			pv, has := obj[p.Name]
			switch {
			case has:
				p.validate(pv, path+"/"+PointerToken(p.Name), out)
			case p.Required:
				*out = append(*out, Problem{Path: path + "/" + PointerToken(p.Name), Reason: "is required"})
			}
		}
	case InputArray:
		n.validateArray(v, path, out)
	case InputChoice:
		for _, alt := range n.Alts {
			if len(alt.Validate(v)) == 0 {
				return
			}
		}
		add("matches none of the choices")
	}
}

func (n *Input) validateArray(v any, path string, out *[]Problem) {
	list, ok := v.([]any)
	if !ok {
		*out = append(*out, Problem{Path: path, Reason: "must be a list"})
		return
	}
	if n.MinItems != nil && len(list) < *n.MinItems {
		*out = append(*out, Problem{Path: path, Reason: "must have at least " + plural(*n.MinItems, "item")})
	}
	if n.MaxItems != nil && len(list) > *n.MaxItems {
		*out = append(*out, Problem{Path: path, Reason: "must have at most " + plural(*n.MaxItems, "item")})
	}
	for i, item := range list {
		n.Items.validate(item, path+"/"+strconv.Itoa(i), out)
	}
}

// enumChoices is "must be one of: a, b", naming up to ten options.
func (n *Input) enumChoices() string {
	if len(n.Options) > maxListedOptions {
		return "must be one of the listed options"
	}
	labels := make([]string, len(n.Options))
	for i, o := range n.Options {
		labels[i] = o.Label
	}
	return "must be one of: " + strings.Join(labels, ", ")
}

// PointerToken escapes a property name for a JSON Pointer.
func PointerToken(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}
