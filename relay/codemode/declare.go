package codemode

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Bounds of a declaration.
const (
	maxTypeDepth = 6    // nesting of a schema read; deeper is unknown
	maxTypeBytes = 4000 // of one type; longer is unknown
)

// toolResultType is what a tool without an output schema gives a program:
// its text, or its content when not all of it is text.
const toolResultType = `type ToolContent = { type: "text"; text: string } | { type: string; [key: string]: unknown };`

// declareTool writes the declaration of t as a method of its server's
// global.
func declareTool(b *strings.Builder, t Tool) {
	if d := strings.TrimSpace(t.Description); d != "" {
		b.WriteString("  " + comment(d) + "\n")
	}
	in := "{}"
	if len(t.InputSchema) > 0 {
		in = typeOf(t.InputSchema)
	}
	out := "string | ToolContent[]"
	if len(t.OutputSchema) > 0 {
		out = typeOf(t.OutputSchema)
	}
	arg := "args: "
	if !requiresArgs(t.InputSchema) {
		arg = "args?: " // a call without them passes {}
	}
	b.WriteString("  " + propertyName(t.Name) + "(" + arg + in + "): Promise<" + out + ">;\n")
}

// requiresArgs reports whether schema requires a property.
func requiresArgs(schema json.RawMessage) bool {
	var s struct{ Required []any }
	return json.Unmarshal(schema, &s) == nil && len(s.Required) > 0
}

// typeOf is the TypeScript type of a JSON Schema.
func typeOf(schema json.RawMessage) string {
	var s any
	if json.Unmarshal(schema, &s) != nil {
		return "unknown"
	}
	t := schemaType(s, 0)
	if len(t) > maxTypeBytes {
		return "unknown"
	}
	return t
}

func schemaType(s any, depth int) string {
	m, ok := s.(map[string]any)
	if !ok || depth > maxTypeDepth {
		return "unknown"
	}
	if _, ok := m["$ref"]; ok {
		return "unknown"
	}
	if c, ok := m["const"]; ok {
		return literal(c)
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		parts := make([]string, len(e))
		for i, v := range e {
			parts[i] = literal(v)
		}
		return strings.Join(parts, " | ")
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok && len(alts) > 0 {
			parts := make([]string, 0, len(alts))
			for _, a := range alts {
				if t := schemaType(a, depth+1); !slices.Contains(parts, t) {
					parts = append(parts, t)
				}
			}
			return strings.Join(parts, " | ")
		}
	}
	if all, ok := m["allOf"].([]any); ok && len(all) > 0 {
		parts := make([]string, len(all))
		for i, a := range all {
			if parts[i] = schemaType(a, depth+1); strings.Contains(parts[i], "|") {
				parts[i] = "(" + parts[i] + ")"
			}
		}
		return strings.Join(parts, " & ")
	}
	switch t := m["type"].(type) {
	case string:
		return typeNamed(t, m, depth)
	case []any:
		parts := make([]string, 0, len(t))
		for _, x := range t {
			if name, ok := x.(string); ok {
				parts = append(parts, typeNamed(name, m, depth))
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, " | ")
		}
	}
	if _, ok := m["properties"]; ok {
		return objectType(m, depth)
	}
	return "unknown"
}

func typeNamed(name string, m map[string]any, depth int) string {
	switch name {
	case "string", "number", "boolean", "null":
		return name
	case "integer":
		return "number"
	case "array":
		item := "unknown"
		if it, ok := m["items"]; ok {
			item = schemaType(it, depth+1)
		}
		if strings.ContainsAny(item, "|&") {
			item = "(" + item + ")"
		}
		return item + "[]"
	case "object":
		return objectType(m, depth)
	}
	return "unknown"
}

func objectType(m map[string]any, depth int) string {
	props, _ := m["properties"].(map[string]any)
	required := map[string]bool{}
	if r, ok := m["required"].([]any); ok {
		for _, x := range r {
			if s, ok := x.(string); ok {
				required[s] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names)
	var parts []string
	for _, k := range names {
		p := props[k]
		field := ""
		if pm, ok := p.(map[string]any); ok {
			if d, ok := pm["description"].(string); ok && strings.TrimSpace(d) != "" {
				field = comment(d) + " "
			}
		}
		opt := "?"
		if required[k] {
			opt = ""
		}
		parts = append(parts, field+propertyName(k)+opt+": "+schemaType(p, depth+1))
	}
	switch extra := m["additionalProperties"].(type) {
	case bool:
		if extra {
			parts = append(parts, "[key: string]: unknown")
		}
	case map[string]any:
		parts = append(parts, "[key: string]: "+schemaType(extra, depth+1))
	}
	if len(parts) == 0 {
		return "{}"
	}
	return "{ " + strings.Join(parts, "; ") + " }"
}

// literal is a JSON value as a TypeScript literal type.
func literal(v any) string {
	switch v.(type) {
	case string, float64, bool, nil:
		b, _ := json.Marshal(v)
		return string(b)
	}
	return "unknown"
}

// propertyName is name as a property: quoted unless an identifier.
func propertyName(name string) string {
	if isIdentifier(name) {
		return name
	}
	return strconv.Quote(name)
}

// comment is text as a one-line doc comment.
func comment(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	text = strings.ReplaceAll(text, "*/", "*\\/")
	return "/** " + text + " */"
}
