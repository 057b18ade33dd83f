package readalong

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A process's messages are read along as HTTP responses are: a listed
// tool's schemas come in the server's key order, unless the listing was
// too large to read along.
func TestConnectionReadsAlongListedTools(t *testing.T) {
	in, out := schemaOf("z", "y", "x"), schemaOf("c", "a", "b")
	for _, big := range []bool{false, true} {
		name := "read along"
		if big {
			name = "too large to read along"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			server := mcp.NewServer(&mcp.Implementation{Name: "order", Version: "1"}, nil)
			tool := &mcp.Tool{Name: "plan", InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out)}
			if big {
				tool.Description = strings.Repeat("x", MaxScanBytes)
			}
			server.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
			serverSide, clientSide := mcp.NewInMemoryTransports()
			ss, err := server.Connect(ctx, serverSide, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			var o Schemas
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
				Connect(ctx, readingTransport{clientSide, o.scan}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.ListTools(ctx, nil)
			if err != nil || len(res.Tools) != 1 {
				t.Fatalf("list: %+v, %v", res, err)
			}
			wantIn, wantOut := []string{"z", "y", "x"}, []string{"c", "a", "b"}
			if big {
				wantIn, wantOut = []string{"x", "y", "z"}, []string{"a", "b", "c"}
			}
			for _, s := range []struct {
				schema any
				want   []string
			}{{res.Tools[0].InputSchema, wantIn}, {res.Tools[0].OutputSchema, wantOut}} {
				ordered, err := o.Ordered(s.schema)
				if err != nil {
					t.Fatal(err)
				}
				if got := fieldOrder(t, ordered); !slices.Equal(got, s.want) {
					t.Errorf("fields %v, want %v", got, s.want)
				}
			}
		})
	}
}

// readingTransport connects through Connection.
type readingTransport struct {
	inner mcp.Transport
	scan  func([]byte)
}

func (t readingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return Connection(conn, t.scan), nil
}
