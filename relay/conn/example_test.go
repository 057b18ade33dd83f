package conn_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/demo"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func ExampleStart() {
	ctx := context.Background()
	url, stop, err := demo.Start(ctx, "")
	if err != nil {
		panic(err)
	}
	defer stop()

	ready := make(chan conn.State, 1)
	c := conn.Start(conn.Config{ID: "demo", Name: "Demo", URL: url, HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0)}, func(s conn.State) {
		if s.State == wire.StateReady {
			select {
			case ready <- s:
			default:
			}
		}
	})
	defer c.Close()

	s := <-ready
	fmt.Println(s.Init.ServerInfo.Name, s.Init.ProtocolVersion)
	for _, t := range s.Lists.Tools {
		fmt.Println("-", t.Name)
	}
	res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hello"}`)}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// switchboard-demo 2026-07-28
	// - add
	// - echo
	// - greet
	// - slow_count
	// - time
	// - toggle_bonus_tool
	// hello
}
