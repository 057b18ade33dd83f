package conn

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/readalong"
	"github.com/switchboard-mcp/switchboard/shared/schema"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// orderedToolInput lists properties in an order that is not alphabetical,
// at the top, in a nested object and in a definition that array items refer
// to; its other keys are not in key order either.
const orderedToolInput = `{"type":"object","properties":{
	"title":{"type":"string","title":"Title"},
	"address":{"type":"object","properties":{
		"street":{"type":"string"},
		"city":{"type":"string"},
		"country":{"type":"string","default":"NL"}
	}},
	"contacts":{"type":"array","items":{"$ref":"#/$defs/contact"}},
	"priority":{"type":"integer","minimum":1,"maximum":5}
},"required":["title"],"$defs":{"contact":{"type":"object","properties":{
	"phone":{"type":"string"},
	"email":{"type":"string","format":"email"}
}}}}`

// orderedToolOutput is an output schema out of key order.
const orderedToolOutput = `{"type":"object","properties":{"total":{"type":"number"},"lines":{"type":"array","items":{"type":"string"}}}}`

// The orders in which the fields of orderedToolInput's form appear: as the
// server wrote them, and alphabetical.
var (
	serverFields    = []string{"title", "address.street", "address.city", "address.country", "contacts.phone", "contacts.email", "priority"}
	canonicalFields = []string{"address.city", "address.country", "address.street", "contacts.email", "contacts.phone", "priority", "title"}
)

// toolOrderServer is a go-sdk server with one tool of the ordered schemas;
// with big, its tools/list result is too large to read along.
func toolOrderServer(big bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "order-fixture", Version: "1"}, nil)
	tool := &mcp.Tool{Name: "plan", InputSchema: json.RawMessage(orderedToolInput), OutputSchema: json.RawMessage(orderedToolOutput)}
	if big {
		tool.Description = strings.Repeat("x", readalong.MaxScanBytes)
	}
	s.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	return s
}

// formFields is the order of the fields of the form of a tool's
// inputSchema, nested fields named parent.child; array items by the array.
func formFields(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	in, err := schema.ParseInput(raw)
	if err != nil {
		t.Fatalf("parse %s: %v", raw, err)
	}
	var names []string
	var walk func(prefix string, in *schema.Input)
	walk = func(prefix string, in *schema.Input) {
		switch in.Kind {
		case schema.InputObject:
			for _, p := range in.Props {
				walk(prefix+p.Name+".", p.Input)
			}
		case schema.InputArray:
			walk(prefix, in.Items)
		default:
			names = append(names, strings.TrimSuffix(prefix, "."))
		}
	}
	walk("", in)
	return names
}

// checkToolOrder checks the schemas of the only tool of tools: in the
// server's order, or in canonical order.
func checkToolOrder(t *testing.T, tools []*mcp.Tool, serverOrder bool) {
	t.Helper()
	if len(tools) != 1 {
		t.Fatalf("tools %v, want one", toolNames(tools))
	}
	tool := tools[0]
	wantFields, wantIn, wantOut := serverFields, compact(orderedToolInput), compact(orderedToolOutput)
	if !serverOrder {
		wantFields, wantIn, wantOut = canonicalFields, canonical(t, orderedToolInput), canonical(t, orderedToolOutput)
	}
	in, _ := tool.InputSchema.(json.RawMessage)
	out, _ := tool.OutputSchema.(json.RawMessage)
	if got := formFields(t, in); !slices.Equal(got, wantFields) {
		t.Errorf("fields %v, want %v", got, wantFields)
	}
	if string(in) != wantIn {
		t.Errorf("inputSchema %s, want %s", in, wantIn)
	}
	if string(out) != wantOut {
		t.Errorf("outputSchema %s, want %s", out, wantOut)
	}
}

// canonical is json.Marshal of the decoding of s: its keys sorted.
func canonical(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestListedToolsKeepTheServersKeyOrder(t *testing.T) {
	transports := []struct {
		name      string
		transport wire.Transport
		handler   func(*mcp.Server) http.Handler
	}{
		{"streamable, event stream", wire.TransportStreamable, func(s *mcp.Server) http.Handler {
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
		}},
		{"streamable, JSON", wire.TransportStreamable, func(s *mcp.Server) http.Handler {
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: true})
		}},
		{"sse", wire.TransportSSE, func(s *mcp.Server) http.Handler {
			return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
		}},
	}
	for _, tr := range transports {
		for _, big := range []bool{false, true} {
			name := tr.name
			if big {
				name += ", too large to read along"
			}
			t.Run(name, func(t *testing.T) {
				hs := httptest.NewServer(tr.handler(toolOrderServer(big)))
				t.Cleanup(hs.Close) // after the connection's close
				cfg := testConfig(hs.URL)
				cfg.Transport = tr.transport
				c, r := start(t, cfg)
				checkToolOrder(t, r.AwaitState(wire.StateReady).Lists.Tools, !big)
				listed, err := c.ListTools(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				checkToolOrder(t, listed, !big) // what an agent gets
			})
		}
	}
}
