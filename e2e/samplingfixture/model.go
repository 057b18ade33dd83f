package samplingfixture

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// readHeaderTimeout bounds how long the model waits for a request's headers.
const readHeaderTimeout = 5 * time.Second

// What the fixture model answers.
const (
	ModelName = "fixture-model"
	ModelKey  = "sk-fixture-key-not-secret"
	// ModelCity is the city the model asks the weather of.
	ModelCity = "Lyon"
)

// ModelText is the model's text reply to a conversation whose last
// message is from a tool, or has no tools.
func ModelText(last string) string { return "Model says: " + last }

// Model is an OpenAI-compatible chat-completions endpoint on 127.0.0.1. It
// calls get_weather (for [ModelCity]) when tools are offered and no tool
// result came yet; otherwise it answers text: [ModelText] of the last
// message's text. It refuses requests without the bearer [ModelKey], and
// records the requests it got.
type Model struct {
	URL string // the endpoint's base: URL + "/chat/completions" is served

	mu       sync.Mutex
	requests []map[string]any
}

// StartModel starts the endpoint; it stops when the test ends.
func StartModel(t testing.TB) *Model {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	m := &Model{URL: "http://" + ln.Addr().String() + "/v1"}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", m.serve)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return m
}

// Requests returns the decoded requests the endpoint got, in order.
func (m *Model) Requests() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]any(nil), m.requests...)
}

func (m *Model) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+ModelKey {
		http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []json.RawMessage `json:"tools"`
	}
	var all map[string]any
	if err != nil || json.Unmarshal(raw, &req) != nil || json.Unmarshal(raw, &all) != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.requests = append(m.requests, all)
	m.mu.Unlock()
	last := req.Messages[len(req.Messages)-1]
	w.Header().Set("Content-Type", "application/json")
	if len(req.Tools) > 0 && last.Role != "tool" {
		fmt.Fprintf(w, `{"model":%q,"choices":[{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
			"tool_calls":[{"id":"call_fixture","type":"function","function":{"name":%q,"arguments":%q}}]}}]}`,
			ModelName, ToolName, `{"city":"`+ModelCity+`"}`)
		return
	}
	reply, _ := json.Marshal(ModelText(lastText(last.Content)))
	fmt.Fprintf(w, `{"model":%q,"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":%s}}]}`, ModelName, reply)
}

// lastText is the text of a message's content: a string, or the first
// text part.
func lastText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	for _, p := range parts {
		if p.Type == "text" {
			return p.Text
		}
	}
	return ""
}
