package codemode

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one tool a program may call.
type Tool struct {
	Name         string // the tool's name as its server lists it: a method of the server's global
	Description  string
	InputSchema  json.RawMessage // JSON Schema of the arguments; may be empty
	OutputSchema json.RawMessage // may be empty
	// Call runs the tool. The engine calls it from a goroutine of its own,
	// never from the runtime's; ctx ends with the program.
	Call func(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error)
}

// Server is one server of the caller's scope.
type Server struct {
	Name        string // shown name; the program's global is derived from it (see [Globals])
	Description string
	Tools       []Tool
}

// Result is what a program gave.
type Result struct {
	Value json.RawMessage // its return value as JSON; null when it returned nothing
	Log   []string        // its console lines, in order
	Error string          // empty on success; else what ended it, with the line when it threw
	Calls int             // the tool calls it made
}

// Text is r for a model: the value (indented JSON) or the error, then the log.
func (r Result) Text() string {
	var b strings.Builder
	if r.Error != "" {
		b.WriteString("Error: " + r.Error)
	} else {
		var out bytes.Buffer
		if json.Indent(&out, r.Value, "", "  ") != nil || out.Len() == 0 {
			out.Reset()
			out.WriteString("null")
		}
		b.Write(out.Bytes())
	}
	if len(r.Log) > 0 {
		b.WriteString("\n\nLog:\n" + strings.Join(r.Log, "\n"))
	}
	return b.String()
}
