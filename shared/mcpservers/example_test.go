package mcpservers_test

import (
	"fmt"

	"github.com/switchboard-mcp/switchboard/shared/mcpservers"
)

func ExampleParse() {
	entries, err := mcpservers.Parse([]byte(`{"mcpServers": {
	  "hosted": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ..."}},
	  "files":  {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
	  "odd":    {"type": "carrier-pigeon", "url": "https://x.example/mcp"}
	}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range entries {
		switch {
		case e.HTTP != nil:
			fmt.Printf("%s: http %s, %d header(s)\n", e.Name, e.HTTP.URL, len(e.HTTP.Headers))
		case e.Stdio != nil:
			fmt.Printf("%s: stdio %s\n", e.Name, e.Stdio.Command)
		default:
			fmt.Printf("%s: %s\n", e.Name, e.Problem)
		}
	}
	// Output:
	// hosted: http https://mcp.example.com/mcp, 1 header(s)
	// files: stdio npx
	// odd: unknown type "carrier-pigeon" (use http, streamable-http or sse)
}
