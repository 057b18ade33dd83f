package mcpwire

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The results of operations, as a dashboard shows them. The server's data
// (text, blobs, structured content) passes as it came, its size capped by
// the connection (relay/conn's Config.MaxResultBytes); what describes it
// is sanitized. A result that cannot be converted fails with
// a [wire.CodeUpstream] error that says why.

// ToolResult converts a tool's result. When the tool listed an
// outputSchema (nil when none), the structuredContent of a result that is
// not an error is checked against it ([wire.OutputCheck]): the result is
// shown either way.
func ToolResult(r *mcp.CallToolResult, outputSchema json.RawMessage) (*wire.CallToolResult, error) {
	out := &wire.CallToolResult{Content: []wire.Content{}, IsError: r.IsError}
	for _, c := range r.Content {
		wc, err := content(c)
		if err != nil {
			return nil, unusable(err)
		}
		out.Content = append(out.Content, wc)
	}
	if r.StructuredContent != nil {
		b, err := json.Marshal(r.StructuredContent)
		if err != nil {
			return nil, unusable(fmt.Errorf("structured content: %w", err))
		}
		out.StructuredContent = b
	}
	if outputSchema != nil && !out.IsError {
		out.OutputCheck = checkOutput(outputSchema, out.StructuredContent)
	}
	return out, nil
}

// PromptResult converts the messages of a prompt.
func PromptResult(r *mcp.GetPromptResult) (*wire.GetPromptResult, error) {
	out := &wire.GetPromptResult{
		Description: text(r.Description, maxDescriptionRunes),
		Messages:    []wire.PromptMessage{},
	}
	for _, m := range r.Messages {
		if m == nil {
			continue
		}
		c, err := content(m.Content)
		if err != nil {
			return nil, unusable(err)
		}
		out.Messages = append(out.Messages, wire.PromptMessage{Role: wire.Role(line(string(m.Role), maxTitleRunes)), Content: c})
	}
	return out, nil
}

// ReadResult converts the contents of a resource.
func ReadResult(r *mcp.ReadResourceResult) *wire.ReadResourceResult {
	out := &wire.ReadResourceResult{Contents: []wire.ResourceContents{}}
	for _, c := range r.Contents {
		if c != nil {
			out.Contents = append(out.Contents, resourceContents(c))
		}
	}
	return out
}

// unusable says that the server answered something the relay cannot use,
// and why, in the words of a connection's failure of that cause.
func unusable(err error) *wire.Error {
	return wire.NewError(wire.CodeUpstream, "the server's answer could not be used: "+err.Error())
}
