package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ParseInput reads a tool's inputSchema into a form. It fails only when the
// document is not a JSON object or is larger than [MaxBytes]; every subtree
// it cannot draw as fields (allOf, a reference cycle, a type list, depth
// beyond [MaxInputDepth], ...) becomes an InputJSON node saying why.
// References ("#/$defs/x", "#/definitions/x") are resolved against the
// document.
func ParseInput(raw json.RawMessage) (*Input, error) {
	if len(raw) > MaxBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrInvalid, MaxBytes)
	}
	root, err := object(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	p := &inputParser{root: root}
	return p.node(raw, 0), nil
}

// inputParser holds the document while its nodes are read.
type inputParser struct {
	root  map[string]json.RawMessage
	refs  []string // the references being followed, to stop at a cycle
	nodes int
}

// Keywords that a form cannot express: their subtree is typed as JSON.
var inputRefused = []string{"allOf", "not", "if", "then", "else", "$dynamicRef", "$recursiveRef",
	"dependentSchemas", "dependencies", "patternProperties", "prefixItems", "unevaluatedProperties"}

// Keywords that do not change what a leaf accepts, dropped before it is
// read as a Field.
var inputAnnotations = []string{"$schema", "$id", "$anchor", "$comment", "$defs", "definitions",
	"examples", "readOnly", "writeOnly", "deprecated", "contentMediaType", "contentEncoding"}

// node reads one schema.
func (p *inputParser) node(raw json.RawMessage, depth int) *Input {
	p.nodes++
	obj, err := object(raw)
	if err != nil {
		return jsonNode(raw, nil, "its schema is not an object")
	}
	if depth > MaxInputDepth {
		return jsonNode(raw, obj, "it nests too deep for a form")
	}
	if p.nodes > MaxInputNodes {
		return jsonNode(raw, obj, "the form has too many fields")
	}
	if ref, ok, _ := stringKeyword(obj, "$ref"); ok {
		return p.ref(raw, obj, ref, depth)
	}
	for _, k := range inputRefused {
		if _, ok := obj[k]; ok {
			return jsonNode(raw, obj, fmt.Sprintf("%q cannot be shown as fields", k))
		}
	}
	types, nullable, err := typeList(obj)
	if err != nil {
		return jsonNode(raw, obj, err.Error())
	}
	var n *Input
	switch {
	case obj["anyOf"] != nil || obj["oneOf"] != nil:
		n = p.choice(raw, obj, depth)
	case obj["enum"] != nil || obj["const"] != nil:
		n = enumNode(raw, obj)
	case len(types) > 1:
		n = jsonNode(raw, obj, "it may be any of "+strings.Join(types, ", "))
	case (len(types) == 0 || types[0] == "object") && obj["properties"] == nil && freeKeys(obj):
		n = jsonNode(raw, obj, "its keys are not listed")
	case len(types) == 0 && obj["properties"] != nil, len(types) == 1 && types[0] == "object":
		n = p.object(raw, obj, depth)
	case len(types) == 0:
		n = jsonNode(raw, obj, "its schema gives no type")
	case types[0] == "array":
		n = p.array(raw, obj, depth)
	default:
		n = leafNode(raw, obj, types[0])
	}
	n.Nullable = n.Nullable || nullable
	if n.Title == "" {
		n.Title, _, _ = stringKeyword(obj, "title")
	}
	if n.Description == "" {
		n.Description, _, _ = stringKeyword(obj, "description")
	}
	if d, ok := obj["default"]; ok && string(d) != "null" {
		n.Default = d
	}
	return n
}

// ref follows a local reference; a cycle or a reference elsewhere is JSON.
func (p *inputParser) ref(raw json.RawMessage, obj map[string]json.RawMessage, ref string, depth int) *Input {
	if slices.Contains(p.refs, ref) {
		return jsonNode(raw, obj, "it refers to itself")
	}
	target, ok := p.resolve(ref)
	if !ok {
		return jsonNode(raw, obj, "its reference "+ref+" cannot be followed")
	}
	p.refs = append(p.refs, ref)
	n := p.node(target, depth+1)
	p.refs = p.refs[:len(p.refs)-1]
	if t, ok, _ := stringKeyword(obj, "title"); ok {
		n.Title = t
	}
	if d, ok, _ := stringKeyword(obj, "description"); ok {
		n.Description = d
	}
	return n
}

// resolve finds "#/$defs/name" or "#/definitions/name" in the document.
func (p *inputParser) resolve(ref string) (json.RawMessage, bool) {
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		name, ok := strings.CutPrefix(ref, prefix)
		if !ok || strings.Contains(name, "/") {
			continue
		}
		defs, err := object(p.root[strings.Trim(prefix[1:], "/")])
		if err != nil {
			return nil, false
		}
		name = strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")
		target, ok := defs[name]
		return target, ok
	}
	return nil, false
}

// typeList reads "type" as a list, with "null" taken out as nullable.
func typeList(obj map[string]json.RawMessage) (types []string, nullable bool, err error) {
	raw, ok := obj["type"]
	if !ok {
		return nil, false, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		types = []string{one}
	} else if json.Unmarshal(raw, &types) != nil {
		return nil, false, errors.New(`"type" is neither a string nor a list of strings`)
	}
	i := slices.Index(types, "null")
	if i >= 0 {
		types = slices.Delete(slices.Clone(types), i, i+1)
	}
	return types, i >= 0, nil
}

// object reads properties and required.
func (p *inputParser) object(raw json.RawMessage, obj map[string]json.RawMessage, depth int) *Input {
	n := &Input{Kind: InputObject}
	props, _ := members(obj["properties"])
	if p.nodes+len(props) > MaxInputNodes { // one JSON editor, not thousands of fields
		return jsonNode(raw, obj, "the form would have too many fields")
	}
	var required []string
	json.Unmarshal(obj["required"], &required) // a malformed list requires nothing
	for _, m := range props {
		n.Props = append(n.Props, Prop{Name: m.key, Required: slices.Contains(required, m.key), Input: p.node(m.value, depth+1)})
	}
	return n
}

// freeKeys reports whether an object allows keys it does not list: an
// additionalProperties that is a schema (true or an object).
func freeKeys(obj map[string]json.RawMessage) bool {
	raw, ok := obj["additionalProperties"]
	return ok && string(raw) != "false"
}

// array reads items and the bounds on their count.
func (p *inputParser) array(raw json.RawMessage, obj map[string]json.RawMessage, depth int) *Input {
	n := &Input{Kind: InputArray}
	var err error
	if n.MinItems, n.MaxItems, err = countRange(obj, "minItems", "maxItems"); err != nil {
		return jsonNode(raw, obj, err.Error())
	}
	if items, ok := obj["items"]; ok {
		n.Items = p.node(items, depth+1)
	} else {
		n.Items = &Input{Kind: InputJSON, Schema: json.RawMessage(`{}`), Why: "any value is allowed"}
	}
	return n
}

// choice reads anyOf/oneOf: titled constants are an enum, a null
// alternative makes the rest nullable, and one alternative left is that
// alternative.
func (p *inputParser) choice(raw json.RawMessage, obj map[string]json.RawMessage, depth int) *Input {
	key := "anyOf"
	if obj[key] == nil {
		key = "oneOf"
	}
	if obj["anyOf"] != nil && obj["oneOf"] != nil {
		return jsonNode(raw, obj, `it has both "anyOf" and "oneOf"`)
	}
	var alts []json.RawMessage
	if json.Unmarshal(obj[key], &alts) != nil || len(alts) == 0 {
		return jsonNode(raw, obj, fmt.Sprintf("%q is not a list of schemas", key))
	}
	if opts, ok := titledConsts(alts); ok {
		return &Input{Kind: InputEnum, Options: opts}
	}
	nullable := false
	var rest []json.RawMessage
	for _, a := range alts {
		if isNullSchema(a) {
			nullable = true
			continue
		}
		rest = append(rest, a)
	}
	var n *Input
	switch len(rest) {
	case 0:
		return jsonNode(raw, obj, "only null is allowed")
	case 1:
		n = p.node(rest[0], depth+1)
	default:
		if p.nodes+len(rest) > MaxInputNodes {
			return jsonNode(raw, obj, "the form would have too many choices")
		}
		n = &Input{Kind: InputChoice}
		for _, a := range rest {
			n.Alts = append(n.Alts, p.node(a, depth+1))
		}
	}
	n.Nullable = n.Nullable || nullable
	return n
}

// isNullSchema reports whether raw is {"type": "null"}.
func isNullSchema(raw json.RawMessage) bool {
	obj, err := object(raw)
	if err != nil {
		return false
	}
	typ, _, _ := stringKeyword(obj, "type")
	return typ == "null" && len(obj) == 1
}

// titledConsts reads alternatives that are all {"const": v, "title": t}.
func titledConsts(alts []json.RawMessage) ([]EnumOption, bool) {
	opts := make([]EnumOption, 0, len(alts))
	for _, a := range alts {
		obj, err := object(a)
		if err != nil || obj["const"] == nil || len(obj) > 3 {
			return nil, false
		}
		title, _, _ := stringKeyword(obj, "title")
		for k := range obj {
			if k != "const" && k != "title" && k != "description" {
				return nil, false
			}
		}
		opts = append(opts, EnumOption{Value: obj["const"], Label: labelOr(title, obj["const"])})
	}
	return opts, len(opts) <= MaxOptions
}

// enumNode reads "enum" (labelled by "enumNames" when they match) or "const".
func enumNode(raw json.RawMessage, obj map[string]json.RawMessage) *Input {
	var values []json.RawMessage
	if c, ok := obj["const"]; ok {
		values = []json.RawMessage{c}
	} else if json.Unmarshal(obj["enum"], &values) != nil || len(values) == 0 || len(values) > MaxOptions {
		return jsonNode(raw, obj, `"enum" is not a list of up to 500 values`)
	}
	var names []string
	json.Unmarshal(obj["enumNames"], &names)
	n := &Input{Kind: InputEnum}
	for i, v := range values {
		if string(v) == "null" {
			n.Nullable = true
			continue
		}
		label := ""
		if len(names) == len(values) {
			label = names[i]
		}
		n.Options = append(n.Options, EnumOption{Value: v, Label: labelOr(label, v)})
	}
	return n
}

// labelOr is label, or the value as a person reads it: a string without
// its quotes, anything else as JSON.
func labelOr(label string, v json.RawMessage) string {
	if label != "" {
		return label
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// leafNode reads a primitive with the elicitation form's field parser; a
// format the validator does not know is an annotation and is dropped.
func leafNode(raw json.RawMessage, obj map[string]json.RawMessage, typ string) *Input {
	leaf := make(map[string]json.RawMessage, len(obj))
	for k, v := range obj {
		if !slices.Contains(inputAnnotations, k) {
			leaf[k] = v
		}
	}
	leaf["type"], _ = json.Marshal(typ)
	if f, ok, _ := stringKeyword(leaf, "format"); ok && formatMessages[f] == "" {
		delete(leaf, "format")
	}
	if d, ok := leaf["default"]; ok && string(d) == "null" {
		delete(leaf, "default")
	}
	b, _ := json.Marshal(leaf) // a map of raw messages always marshals
	fd, err := parseField("", b)
	if err != nil {
		return jsonNode(raw, obj, err.Error())
	}
	return &Input{Kind: InputField, Field: fd}
}

// jsonNode is the fallback for a subtree: typed as JSON, with the reason.
func jsonNode(raw json.RawMessage, obj map[string]json.RawMessage, why string) *Input {
	n := &Input{Kind: InputJSON, Schema: raw, Why: why}
	if obj != nil {
		n.Title, _, _ = stringKeyword(obj, "title")
		n.Description, _, _ = stringKeyword(obj, "description")
	}
	return n
}
