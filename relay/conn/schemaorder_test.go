package conn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/schema"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// orderedSchema lists its properties in an order that is not alphabetical.
const orderedSchema = `{"type":"object","properties":{
	"name":{"type":"string","title":"Name"},
	"email":{"type":"string","title":"Email","format":"email"},
	"age":{"type":"integer","minimum":0},
	"zip":{"type":"string","pattern":"^[0-9]{5}$"}
},"required":["name"]}`

// serverOrder is the order of orderedSchema's properties.
var serverOrder = []string{"name", "email", "age", "zip"}

func orderedParams() *mcp.ElicitParams {
	return &mcp.ElicitParams{Message: "Where do you live?", RequestedSchema: json.RawMessage(orderedSchema)}
}

// fieldOrder is the order in which a form of schema raw shows its fields.
func fieldOrder(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	form, err := schema.Parse(raw)
	if err != nil {
		t.Fatalf("parse %s: %v", raw, err)
	}
	var names []string
	for _, f := range form.Fields {
		names = append(names, f.Name)
	}
	return names
}

// checkAskedInOrder answers the next ask and checks that its schema is
// orderedSchema, properties in the server's order.
func checkAskedInOrder(t *testing.T, asker *scriptedAsker, from Origin) {
	t.Helper()
	call := asker.next(t)
	call.answer(decline, nil)
	if call.p == nil || elicitMode(call.p) != modeForm || call.from != from {
		t.Fatalf("asked %+v from %v, want a form from %v", call.p, call.from, from)
	}
	schema, _ := call.p.RequestedSchema.(json.RawMessage)
	if got := fieldOrder(t, schema); !slices.Equal(got, serverOrder) {
		t.Errorf("fields %v, want the server's order %v", got, serverOrder)
	}
	var got, want any
	if json.Unmarshal(schema, &got) != nil || json.Unmarshal([]byte(orderedSchema), &want) != nil || !jsonEqual(got, want) {
		t.Errorf("schema %s, want %s", schema, orderedSchema)
	}
}

// declined checks that a fixture tool reports a declined elicitation.
func declined(t *testing.T, o outcome) {
	t.Helper()
	if o.Action != "decline" {
		t.Errorf("the server got %+v, want decline", o)
	}
}

func TestElicitationFormKeepsTheServersPropertyOrder(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	addElicitTool(f.server, "ask", orderedParams, nil)
	asker := newScriptedAsker()
	c, _ := startAsking(t, f, asker, AllAskModes)

	done := callAsync(c, context.Background(), "ask")
	checkAskedInOrder(t, asker, FromRequest)
	declined(t, outcomeOf(t)(awaitCall(t, done)))
}

func TestElicitationOnTheStandaloneStreamKeepsTheServersPropertyOrder(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	results := make(chan error, 1)
	f.server.AddTool(&mcp.Tool{Name: "later", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// Not related to the call: the go-sdk sends it on the GET stream.
			go func() {
				_, err := req.Session.Elicit(context.Background(), orderedParams())
				results <- err
			}()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "later"}}}, nil
		})
	asker := newScriptedAsker()
	c, _ := startAsking(t, f, asker, AllAskModes)

	if _, err := c.CallTool(context.Background(), toolCall("later", nil), nil); err != nil {
		t.Fatal(err)
	}
	checkAskedInOrder(t, asker, FromRequest)
	if err := <-results; err != nil {
		t.Errorf("elicit: %v", err)
	}
}

func TestInputRequestFormKeepsTheServersPropertyOrder(t *testing.T) {
	for _, jsonResponse := range []bool{false, true} {
		t.Run(fmt.Sprintf("json response %v", jsonResponse), func(t *testing.T) {
			f := newFixture(t, statelessEra, nil)
			f.server.AddTool(&mcp.Tool{Name: "input", InputSchema: map[string]any{"type": "object"}},
				func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					if r, ok := req.Params.InputResponses["where"].(*mcp.ElicitResult); ok {
						return report(r, nil), nil
					}
					return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"where": orderedParams()}}, nil
				})
			f.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.server },
				&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: jsonResponse})
			f.stop()
			f.restart()
			asker := newScriptedAsker()
			c, _ := startAsking(t, f, asker, AllAskModes)

			done := callAsync(c, context.Background(), "input")
			checkAskedInOrder(t, asker, FromInput)
			declined(t, outcomeOf(t)(awaitCall(t, done)))
		})
	}
}

func TestElicitationOverSSEKeepsTheServersPropertyOrder(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "sse-fixture", Version: "1"}, nil)
	addElicitTool(server, "ask", orderedParams, nil)
	hs := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(hs.Close) // after the connection's close
	asker := newScriptedAsker()
	cfg := elicitConfig(hs.URL, asker, AllAskModes)
	cfg.Transport = wire.TransportSSE
	c, r := start(t, cfg)
	r.AwaitState(wire.StateReady)

	done := callAsync(c, context.Background(), "ask")
	checkAskedInOrder(t, asker, FromRequest)
	declined(t, outcomeOf(t)(awaitCall(t, done)))
}

func compact(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		panic(err)
	}
	return b.String()
}
