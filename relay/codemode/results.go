package codemode

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dop251/goja"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
