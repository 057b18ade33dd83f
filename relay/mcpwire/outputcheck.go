package mcpwire

import (
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/switchboard-mcp/switchboard/shared/schema"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Output checks. A tool that declares an outputSchema promises that its
// result's structuredContent matches it; the relay checks that promise for
// the person ([wire.OutputCheck]) and shows the result either way. The
// validator is the go-sdk's own (github.com/google/jsonschema-go), which
// says whether a value matches and why not, but not where. So where the
// value fails, the check descends along properties and items, validating
// each part against its subschema (local $refs inlined), and reports the
// deepest parts that fail, each with a JSON Pointer and the validator's
// reason.

// Caps of an output check.
const (
	maxReasonRunes = 200
	// maxRefDepth bounds the inlining of nested $refs; a deeper (or cyclic)
	// reference accepts anything rather than loop.
	maxRefDepth = 16
)

// checkOutput checks structured, a result's structuredContent (nil when the
// result has none), against schema, a tool's outputSchema.
func checkOutput(schema, structured json.RawMessage) *wire.OutputCheck {
	if structured == nil {
		return &wire.OutputCheck{Problems: []wire.SchemaProblem{{Reason: "the tool declares an outputSchema but its result has no structuredContent"}}}
	}
	var doc map[string]any
	if err := json.Unmarshal(schema, &doc); err != nil {
		return unusableSchema(err)
	}
	var value any
	if err := json.Unmarshal(structured, &value); err != nil {
		return &wire.OutputCheck{Problems: []wire.SchemaProblem{{Reason: "the structuredContent is not JSON"}}}
	}
	c := &outputChecker{root: doc}
	whole, err := c.resolve(doc)
	if err != nil {
		return unusableSchema(err)
	}
	err = whole.Validate(value)
	if err == nil {
		return &wire.OutputCheck{Valid: true}
	}
	c.locate(doc, value, "", err)
	return &wire.OutputCheck{Problems: c.problems}
}

// unusableSchema is the check of a schema the validator cannot use.
func unusableSchema(err error) *wire.OutputCheck {
	return &wire.OutputCheck{Problems: []wire.SchemaProblem{{Reason: wire.Sanitize("the tool's outputSchema cannot be used: "+err.Error(), maxReasonRunes)}}}
}

// outputChecker finds where a value fails a schema document.
type outputChecker struct {
	root     map[string]any
	problems []wire.SchemaProblem
}

// locate reports where value, at path, fails node (whose whole failure is
// err): at the parts that fail their own subschemas, or at path itself
// when no part does.
func (c *outputChecker) locate(node map[string]any, value any, path string, err error) {
	if len(c.problems) >= wire.MaxOutputProblems {
		return
	}
	node = c.deref(node, 0)
	found := false
	check := func(sub any, part any, at string) {
		subNode, ok := sub.(map[string]any)
		if !ok || len(c.problems) >= wire.MaxOutputProblems {
			return
		}
		rs, rerr := c.resolve(subNode)
		if rerr != nil {
			return
		}
		if verr := rs.Validate(part); verr != nil {
			found = true
			c.locate(subNode, part, at, verr)
		}
	}
	switch v := value.(type) {
	case map[string]any:
		props, _ := node["properties"].(map[string]any)
		for _, k := range sortedKeys(v) {
			if sub, ok := props[k]; ok {
				check(sub, v[k], path+"/"+schema.PointerToken(k))
			}
		}
	case []any:
		if items, ok := node["items"].(map[string]any); ok {
			prefix, _ := node["prefixItems"].([]any)
			for i := len(prefix); i < len(v); i++ {
				check(items, v[i], path+"/"+strconv.Itoa(i))
			}
		}
		if prefix, ok := node["prefixItems"].([]any); ok {
			for i := 0; i < len(prefix) && i < len(v); i++ {
				check(prefix[i], v[i], path+"/"+strconv.Itoa(i))
			}
		}
	}
	if !found && len(c.problems) < wire.MaxOutputProblems {
		c.problems = append(c.problems, wire.SchemaProblem{Path: path, Reason: reason(err)})
	}
}

// resolve prepares node, a schema of the document, for validation on its
// own: its local references are inlined.
func (c *outputChecker) resolve(node map[string]any) (*jsonschema.Resolved, error) {
	standalone, _ := c.inline(node, 0).(map[string]any)
	delete(standalone, "$defs")
	delete(standalone, "definitions")
	b, err := json.Marshal(standalone)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
}

// inline returns v with every local $ref ("#/...") replaced by what it
// points to, itself inlined, up to maxRefDepth.
func (c *outputChecker) inline(v any, depth int) any {
	switch v := v.(type) {
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
			if depth >= maxRefDepth {
				return map[string]any{}
			}
			target, ok := c.pointer(ref)
			if !ok {
				return v // the validator reports the missing target
			}
			merged := map[string]any{}
			for k, x := range target {
				merged[k] = x
			}
			for k, x := range v { // keywords beside the $ref apply too
				if k != "$ref" {
					merged[k] = x
				}
			}
			return c.inline(merged, depth+1)
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			if k == "$defs" || k == "definitions" || k == "const" || k == "enum" || k == "default" || k == "examples" {
				out[k] = x // data, or definitions reached through $refs
				continue
			}
			out[k] = c.inline(x, depth)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = c.inline(x, depth)
		}
		return out
	}
	return v
}

// deref follows node's local $ref, if any, as inline does.
func (c *outputChecker) deref(node map[string]any, depth int) map[string]any {
	inlined, ok := c.inline(node, depth).(map[string]any)
	if !ok {
		return node
	}
	return inlined
}

// pointer returns the schema a local reference ("#", "#/$defs/x") names.
func (c *outputChecker) pointer(ref string) (map[string]any, bool) {
	var cur any = c.root
	rest := strings.TrimPrefix(ref, "#")
	if rest != "" {
		if !strings.HasPrefix(rest, "/") {
			return nil, false // an anchor: not followed
		}
		for _, tok := range strings.Split(rest[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch x := cur.(type) {
			case map[string]any:
				cur = x[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(x) {
					return nil, false
				}
				cur = x[i]
			default:
				return nil, false
			}
		}
	}
	m, ok := cur.(map[string]any)
	return m, ok
}

// validatingPrefix matches the validator's layers of context ("validating
// root: ", "validating /properties/a: ").
var validatingPrefix = regexp.MustCompile(`^(validating [^:]*: )+`)

// reason is the innermost reason of a validation error, one sanitized line.
func reason(err error) string {
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			break
		}
		err = inner
	}
	msg := validatingPrefix.ReplaceAllString(err.Error(), "")
	return wire.Sanitize(msg, maxReasonRunes)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
