package llm

import (
	"cmp"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/netguard"
)

const testKey = "sk-test-secret-0123456789"

// endpoint is a model endpoint on 127.0.0.1: it records each request and
// answers with its reply, flushing each piece of the body as it goes.
type endpoint struct {
	*httptest.Server
	got chan recorded
	// gone is closed when a held reply saw its client go away.
	gone chan struct{}
}

// reply is what an endpoint answers.
type reply struct {
	status int               // 200 when 0
	header map[string]string // Content-Type text/event-stream unless set
	body   []string          // written and flushed in order
	hold   bool              // after body, wait until the client goes away
}

type recorded struct {
	path   string
	header http.Header
	body   map[string]any
}

func newEndpoint(t *testing.T, rep reply) *endpoint {
	t.Helper()
	e := &endpoint{got: make(chan recorded, 1), gone: make(chan struct{})}
	release := make(chan struct{})
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("the request is not JSON: %v", err)
		}
		select {
		case e.got <- recorded{path: r.URL.Path, header: r.Header.Clone(), body: body}:
		default:
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(cmp.Or(rep.status, http.StatusOK))
		for _, piece := range rep.body {
			io.WriteString(w, piece)
			w.(http.Flusher).Flush()
		}
		if rep.hold {
			select {
			case <-r.Context().Done():
				close(e.gone)
			case <-release:
			}
		}
	}))
	t.Cleanup(e.Close)
	t.Cleanup(func() { close(release) }) // before Close, which waits for the handler
	return e
}

// newClient is a client of kind for e, with the test key.
func newClient(t *testing.T, kind Kind, e *endpoint) *Client {
	t.Helper()
	return newClientWith(t, Config{Kind: kind, URL: e.URL, Key: testKey})
}

func newClientWith(t *testing.T, cfg Config) *Client {
	t.Helper()
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = netguard.Policy{AllowLoopback: true}.Client(0)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sse is server-sent events with data lines only, as chat completions
// sends them.
func sse(data ...string) []string {
	out := make([]string, len(data))
	for i, d := range data {
		out[i] = "data: " + d + "\n\n"
	}
	return out
}

// named is one server-sent event with a name, as Messages sends them.
func named(name, data string) string {
	return "event: " + name + "\ndata: " + data + "\n\n"
}

// events reads a whole stream.
func events(t *testing.T, c *Client, req *Request) ([]Event, error) {
	t.Helper()
	var out []Event
	for ev, err := range c.Stream(t.Context(), req) {
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
	return out, nil
}

// hello is a one-message request.
func hello() *Request {
	return &Request{Messages: []Message{{Role: User, Parts: []Part{TextPart("Hello")}}}}
}

// at walks a decoded JSON value: keys of objects, indexes of arrays.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// asJSON is v as compact JSON, for comparisons.
func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// hasKey says whether s holds the key or its start.
func hasKey(s string) bool { return strings.Contains(s, testKey[:8]) }

// weatherRequest is a second round: a question with an image, the
// assistant's reasoning and two tool calls, and their results, one with
// an image and one an error.
func weatherRequest() *Request {
	temp := 0.5
	return &Request{
		System:      "You are terse.",
		MaxTokens:   300,
		Temperature: &temp,
		Stop:        []string{"END"},
		Tools: []Tool{{Name: "get_weather", Description: "Weather of a city.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}},
		ToolChoice: ToolChoice{Mode: ToolNamed, Name: "get_weather"},
		Messages: []Message{
			{Role: User, Parts: []Part{TextPart("Weather here and in Lyon?"), ImagePart("image/png", []byte("png!"))}},
			{Role: Assistant, Parts: []Part{
				{Type: PartReasoning, Text: "Need two cities.", Signature: "sig"},
				{Type: PartReasoning, Text: "unsigned"},
				TextPart("Let me look."),
				ToolCallPart(ToolCall{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}),
				ToolCallPart(ToolCall{ID: "call_2", Name: "get_weather"}),
			}},
			{Role: User, Parts: []Part{
				TextPart("Here are the results."),
				ToolResultPart(ToolResult{CallID: "call_1", Parts: []Part{TextPart("18°C, cloudy"), ImagePart("image/png", []byte("sky"))}}),
				ToolResultPart(ToolResult{CallID: "call_2", Parts: []Part{TextPart("timed out")}, IsError: true}),
			}},
		},
	}
}

// partsJSON is parts in brief: the fields set (keys sorted), a tool
// call's inline.
func partsJSON(parts []Part) string {
	var out []map[string]any
	for _, p := range parts {
		m := map[string]any{"Type": p.Type}
		if p.Text != "" {
			m["Text"] = p.Text
		}
		if p.Signature != "" {
			m["Signature"] = p.Signature
		}
		if c := p.ToolCall; c != nil {
			m["ID"], m["Name"], m["Arguments"] = c.ID, c.Name, json.RawMessage(c.Arguments)
		}
		out = append(out, m)
	}
	return asJSON(out)
}
