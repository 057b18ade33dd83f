package toolfixture

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names.
const (
	ToolRich     = "rich"
	ToolContents = "contents"
	ToolShapeOK  = "shape_ok"
	ToolShapeBad = "shape_bad"
	ToolBig      = "big"
	ToolWipe     = "wipe"
	ToolCrash    = "crash"
	ToolFailLong = "fail_long"
)

// What the tools answer.
const (
	// ControlText is the text block of the contents tool: ESC, NUL and BEL inside.
	ControlText = "red \x1b[31malert\x1b[0m nul\x00 bell\a end"
	NotesURI    = "fixture://notes/readme.txt"
	NotesText   = "Notes read in place."
	EmbedText   = "embedded words"
	// BigLine repeats to make the big tool's result; BigBytes is its length.
	BigLine  = "0123456789 the quick brown fox jumps over the lazy dog 0123456789\n"
	BigBytes = 2 << 20
)

// LongError is what the fail_long tool fails with: over 600 characters,
// one space.
var LongError = "refused: " + strings.Repeat("x", 600)

var objectSchema = json.RawMessage(`{"type": "object"}`)

func (s *Server) addTools(srv *mcp.Server) {
	srv.AddTool(&mcp.Tool{Name: ToolRich, Description: "Echoes the arguments it gets.", InputSchema: json.RawMessage(RichSchema),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)},
		Icons:       []mcp.Icon{{Source: "data:image/png;base64," + pngBase64(), MIMEType: "image/png"}}},
		s.rich)
	srv.AddTool(&mcp.Tool{Name: ToolContents, Description: "One block of every content type.", InputSchema: objectSchema},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return contents(), nil })
	srv.AddTool(&mcp.Tool{Name: ToolShapeOK, Description: "A result that matches its output schema.", InputSchema: objectSchema,
		OutputSchema: json.RawMessage(ShapeSchema)}, shape(ShapeOK))
	srv.AddTool(&mcp.Tool{Name: ToolShapeBad, Description: "A result that does not match its output schema.", InputSchema: objectSchema,
		OutputSchema: json.RawMessage(ShapeSchema)}, shape(ShapeBad))
	srv.AddTool(&mcp.Tool{Name: ToolBig, Description: "About 2 MB of text.", InputSchema: objectSchema},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := strings.Repeat(BigLine, BigBytes/len(BigLine)+1)[:BigBytes]
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	destructive := true
	srv.AddTool(&mcp.Tool{Name: ToolWipe, Description: "Deletes everything (it only counts).", InputSchema: objectSchema,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive}}, s.wipe)
	srv.AddTool(&mcp.Tool{Name: ToolCrash, Description: "Stops the server while the call waits.", InputSchema: objectSchema}, s.crashTool)
	srv.AddTool(&mcp.Tool{Name: ToolFailLong, Description: "Fails with a long error.", InputSchema: objectSchema},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New(LongError)
		})
}

// rich records its arguments and answers with them.
func (s *Server) rich(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args := req.Params.Arguments
	s.mu.Lock()
	s.received = append(s.received, append(json.RawMessage(nil), args...))
	s.mu.Unlock()
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(args)}}, StructuredContent: args}, nil
}

func (s *Server) wipe(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	s.wipes++
	n := s.wipes
	s.mu.Unlock()
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wiped " + strings.Repeat("!", n)}}}, nil
}

// crashTool stops the server as a crash would: no answer reaches the caller.
func (s *Server) crashTool(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.crash.Do(func() {
		s.Crash()
		close(s.crashed)
	})
	return nil, errors.New("crashed")
}

// shape answers with structured content (and its text, as the spec asks).
func shape(structured string) mcp.ToolHandler {
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: structured}},
			StructuredContent: json.RawMessage(structured)}, nil
	}
}

// contents is one block of every content type.
func contents() *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: ControlText},
		&mcp.ImageContent{Data: pngBytes(), MIMEType: "image/png"},
		&mcp.AudioContent{Data: wavBytes(), MIMEType: "audio/wav"},
		&mcp.ResourceLink{URI: NotesURI, Name: "notes", MIMEType: "text/plain"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "fixture://embedded/words.txt", MIMEType: "text/plain", Text: EmbedText}},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "fixture://embedded/data.bin", MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2, 3, 4, 5, 6, 7}}},
	}}
}
