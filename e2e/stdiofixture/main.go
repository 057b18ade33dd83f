// Command stdiofixture is an MCP server on stdin/stdout (the official
// go-sdk's StdioTransport) for tests of the relay's stdio servers. Tests
// build it with `go build` and name the binary in a stdio configuration.
//
// Its tools:
//   - echo {"text"}: returns text;
//   - env: returns its environment, one KEY=VALUE a line, sorted;
//   - pid: returns its process id, to tell one process from another.
//
// On start it writes "stdiofixture started" to stderr, followed by
// FIXTURE_STDERR_BYTES bytes of 'x' in lines of 100 when that is set.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Text string `json:"text"`
}

func main() {
	fmt.Fprintln(os.Stderr, "stdiofixture started")
	if n, err := strconv.Atoi(os.Getenv("FIXTURE_STDERR_BYTES")); err == nil {
		line := strings.Repeat("x", 99) + "\n"
		for ; n > 0; n -= len(line) {
			os.Stderr.WriteString(line)
		}
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "stdiofixture", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Returns its text."}, func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return text(a.Text), nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "env", Description: "Returns its environment."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		env := os.Environ()
		slices.Sort(env)
		return text(strings.Join(env, "\n")), nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "pid", Description: "Returns its process id."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return text(strconv.Itoa(os.Getpid())), nil, nil
	})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
