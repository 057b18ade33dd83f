package modelfixture_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
)

// weatherSchema is the input schema of the tool the requests offer.
const weatherSchema = `{"type":"object","properties":{"city":{"type":"string"}}}`

func TestRecordsOpenAIRequests(t *testing.T) {
	m := modelfixture.Start(t, modelfixture.Options{Key: "sk-test", Replies: []modelfixture.Reply{
		modelfixture.Calls(modelfixture.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Lyon"}`}),
		modelfixture.Text("Cloudy."),
	}})
	url, headers := m.OpenAIURL()+"/chat/completions", map[string]string{"Authorization": "Bearer sk-test"}
	tools := []any{map[string]any{"type": "function", "function": map[string]any{
		"name": "get_weather", "description": "The weather.", "parameters": json.RawMessage(weatherSchema)}}}
	history := []any{
		map[string]any{"role": "system", "content": "Be terse."},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Weather in Lyon?"}}},
	}
	ctx, sent := testCtx(t), make(chan struct{})
	go func() {
		defer close(sent)
		if resp, err := post(ctx, url, headers, map[string]any{"model": "gpt-x", "messages": history, "tools": tools, "max_completion_tokens": 50}); err == nil {
			resp.Body.Close()
		}
	}()
	first := m.Next(t) // waits for the request above
	await(t, sent, "the first answer")
	if first.N != 1 || first.Provider != modelfixture.OpenAI || first.Path != "/v1/chat/completions" || first.Model != "gpt-x" ||
		first.System != "Be terse." || first.Stream || first.MaxTokens != 50 || first.Rejected ||
		first.Header.Get("Authorization") != "Bearer sk-test" || len(first.Messages) != 2 || first.Messages[1].Text() != "Weather in Lyon?" {
		t.Errorf("first request %+v", first)
	}
	if len(first.Tools) != 1 || first.Tools[0].Name != "get_weather" || first.Tools[0].Description != "The weather." ||
		string(first.Tools[0].Schema) != weatherSchema {
		t.Errorf("tools %+v", first.Tools)
	}
	history = append(history,
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
			"function": map[string]any{"name": "get_weather", "arguments": `{"city":"Lyon"}`}}}},
		map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "18°C, cloudy"})
	mustPost(testCtx(t), t, url, headers, map[string]any{"model": "gpt-x", "messages": history, "tools": tools, "stream": true})
	second := m.Await(t, 2)[1]
	if got := second.Messages[2].ToolCalls(); !slices.Equal(got, []modelfixture.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Lyon"}`}}) {
		t.Errorf("the assistant's calls %+v", got)
	}
	last := second.Messages[len(second.Messages)-1]
	if got := last.ToolResults(); !second.Stream || !slices.Equal(got, []modelfixture.ToolResult{{ID: "call_1", Content: "18°C, cloudy"}}) {
		t.Errorf("the last message carries %+v", got)
	}
	if n := len(m.Requests()); n != 2 || m.Next(t) != second {
		t.Errorf("%d requests recorded, or Next skipped one", n)
	}
}

func TestRecordsAnthropicRequests(t *testing.T) {
	m := modelfixture.Start(t, modelfixture.Options{Key: "sk-ant", Replies: []modelfixture.Reply{modelfixture.Text("Cloudy.")}})
	body := map[string]any{"model": "claude-x", "max_tokens": 64, "stream": true,
		"system": []any{map[string]any{"type": "text", "text": "Be terse."}, map[string]any{"type": "text", "text": "Be kind."}},
		"tools":  []any{map[string]any{"name": "get_weather", "description": "The weather.", "input_schema": json.RawMessage(weatherSchema)}},
		"messages": []any{
			map[string]any{"role": "user", "content": "Weather in Lyon?"},
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Looking."},
				map[string]any{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": map[string]any{"city": "Lyon"}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1",
				"content": []any{map[string]any{"type": "text", "text": "18°C"}}, "is_error": true}}},
		}}
	mustPost(testCtx(t), t, m.AnthropicURL()+"/v1/messages", map[string]string{"x-api-key": "sk-ant", "anthropic-version": "2023-06-01"}, body)
	r := m.Next(t)
	if r.Provider != modelfixture.Anthropic || r.Path != "/v1/messages" || r.Model != "claude-x" || r.System != "Be terse.\nBe kind." ||
		!r.Stream || r.MaxTokens != 64 || r.Header.Get("x-api-key") != "sk-ant" || r.Header.Get("anthropic-version") != "2023-06-01" {
		t.Errorf("request %+v", r)
	}
	if len(r.Tools) != 1 || r.Tools[0].Name != "get_weather" || string(r.Tools[0].Schema) != weatherSchema {
		t.Errorf("tools %+v", r.Tools)
	}
	if len(r.Messages) != 3 || r.Messages[0].Text() != "Weather in Lyon?" || r.Messages[1].Text() != "Looking." {
		t.Fatalf("messages %+v", r.Messages)
	}
	if got := r.Messages[1].ToolCalls(); !slices.Equal(got, []modelfixture.ToolCall{{ID: "toolu_1", Name: "get_weather", Arguments: `{"city":"Lyon"}`}}) {
		t.Errorf("the assistant's calls %+v", got)
	}
	if got := r.Messages[2].ToolResults(); !slices.Equal(got, []modelfixture.ToolResult{{ID: "toolu_1", Content: "18°C", IsError: true}}) {
		t.Errorf("the tool results %+v", got)
	}
	var raw map[string]any
	if json.Unmarshal(r.Body, &raw) != nil || raw["model"] != "claude-x" {
		t.Errorf("the raw body %s", r.Body)
	}
}

func TestWrongKeyIsRefused(t *testing.T) {
	wantType := map[modelfixture.Provider]string{modelfixture.OpenAI: "invalid_request_error", modelfixture.Anthropic: "authentication_error"}
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			m := modelfixture.Start(t, modelfixture.Options{Key: "sk-right", Replies: []modelfixture.Reply{modelfixture.Text("ok")}})
			for _, key := range []string{"", "sk-wrong"} {
				url, headers, body := request(m, p, true, key)
				resp := mustPost(testCtx(t), t, url, headers, body)
				e := readError(t, resp)
				if resp.StatusCode != http.StatusUnauthorized || e.Error.Type != wantType[p] ||
					(p == modelfixture.OpenAI && (e.Error.Code == nil || *e.Error.Code != "invalid_api_key")) {
					t.Errorf("key %q: %d %+v", key, resp.StatusCode, e)
				}
			}
			url, headers, body := request(m, p, true, "sk-right")
			events, err := readSSE(mustPost(testCtx(t), t, url, headers, body).Body)
			if s := assemble(t, p, events); err != nil || s.text != "ok" {
				t.Errorf("the right key got %+v, %v; want the queued reply", s, err)
			}
			reqs := m.Requests()
			if len(reqs) != 3 || !reqs[0].Rejected || !reqs[1].Rejected || reqs[2].Rejected {
				t.Errorf("recorded %d requests", len(reqs))
			}
		})
	}
}

func TestDecideAnswersFromTheRequest(t *testing.T) {
	m := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{modelfixture.Text("queued first")}})
	m.SetDecide(func(r *modelfixture.Request) modelfixture.Reply {
		return modelfixture.Text(fmt.Sprintf("%s #%d: %s", r.Provider, r.N, r.Messages[len(r.Messages)-1].Text()))
	})
	var got []string
	for _, p := range []modelfixture.Provider{modelfixture.OpenAI, modelfixture.OpenAI, modelfixture.Anthropic} {
		events, err := readSSE(ask(testCtx(t), t, m, p, true).Body)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, assemble(t, p, events).text)
	}
	if want := []string{"queued first", "openai #2: Hi", "anthropic #3: Hi"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// recorder is a testing.TB that keeps the errors and fatal errors it is
// told of, and ends the goroutine on a fatal one.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errors...)
}

func TestUnscriptedRequestFailsTheTest(t *testing.T) {
	rec := &recorder{TB: t}
	m := modelfixture.Start(rec, modelfixture.Options{})
	resp := ask(testCtx(t), t, m, modelfixture.Anthropic, true)
	if e := readError(t, resp); resp.StatusCode != http.StatusInternalServerError || e.Error.Type != "api_error" {
		t.Errorf("got %d %+v", resp.StatusCode, e)
	}
	if errs := rec.got(); len(errs) != 1 {
		t.Errorf("the test was told %q, want one error", errs)
	}
}

func TestAwaitFailsTheTestWhenNothingComes(t *testing.T) {
	m := modelfixture.Start(t, modelfixture.Options{Wait: time.Millisecond})
	rec := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.Await(rec, 1)
	}()
	await(t, done, "Await's end")
	if errs := rec.got(); len(errs) != 1 {
		t.Errorf("the test was told %q, want one error", errs)
	}
}

func TestBadBodyIsRecordedAndRefused(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			m := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{modelfixture.Text("ok")}})
			url, _, _ := request(m, p, false, "")
			resp, err := http.Post(url, "application/json", strings.NewReader("not json"))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if e := readError(t, resp); resp.StatusCode != http.StatusBadRequest || e.Error.Type != "invalid_request_error" {
				t.Errorf("got %d %+v", resp.StatusCode, e)
			}
			if r := m.Next(t); string(r.Body) != "not json" || r.Rejected {
				t.Errorf("recorded %q", r.Body)
			}
			events, err := readSSE(ask(testCtx(t), t, m, p, true).Body)
			if s := assemble(t, p, events); err != nil || s.text != "ok" {
				t.Errorf("the next request got %+v, %v; want the queued reply", s, err)
			}
		})
	}
}

func TestRunServesOutsideATestUntilStopped(t *testing.T) {
	var mu sync.Mutex
	var reports []string
	m, stop, err := modelfixture.Run(modelfixture.Options{Replies: []modelfixture.Reply{modelfixture.Text("from Run")}},
		func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			reports = append(reports, fmt.Sprintf(format, args...))
		})
	if err != nil {
		t.Fatal(err)
	}
	events, err := readSSE(ask(testCtx(t), t, m, modelfixture.OpenAI, true).Body)
	if s := assemble(t, modelfixture.OpenAI, events); err != nil || s.text != "from Run" {
		t.Errorf("got %+v, %v; want the queued reply", s, err)
	}
	resp := ask(testCtx(t), t, m, modelfixture.OpenAI, true)
	if resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("a request without a reply got %s, want 500", resp.Status)
	}
	mu.Lock()
	if len(reports) != 1 || !strings.Contains(reports[0], "no reply scripted") {
		t.Errorf("reported %q, want one line about the request without a reply", reports)
	}
	mu.Unlock()
	stop()
	if _, err := post(testCtx(t), m.OpenAIURL()+"/chat/completions", nil, map[string]any{"model": "m"}); err == nil {
		t.Error("the fixture still answers after stop")
	}
}
