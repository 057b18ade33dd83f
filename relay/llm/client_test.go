package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestNewChecksTheConfig(t *testing.T) {
	for _, cfg := range []Config{
		{URL: "https://x.example/v1", Model: "m"},
		{Kind: "gemini", URL: "https://x.example/v1", Model: "m"},
		{Kind: OpenAI, Model: "m"},
		{Kind: OpenAI, URL: "https://x.example/v1"},
		{Kind: Anthropic, URL: "ftp://x.example", Model: "m"},
		{Kind: Anthropic, URL: "https:///v1", Model: "m"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

// The key goes over plain http only to a loopback address, where it
// never crosses a network.
func TestNewRefusesAKeyOverPlainHTTP(t *testing.T) {
	for url, ok := range map[string]bool{
		"http://models.example/v1":  false,
		"http://10.0.0.7:8000/v1":   false,
		"https://models.example/v1": true,
		"http://127.0.0.1:8000/v1":  true,
		"http://localhost:11434/v1": true,
		"http://[::1]:8000/v1":      true,
	} {
		for _, kind := range []Kind{OpenAI, Anthropic} {
			_, err := New(Config{Kind: kind, URL: url, Model: "m", Key: testKey})
			if (err == nil) != ok {
				t.Errorf("New(%s, %s) with a key: %v, want ok=%v", kind, url, err, ok)
			}
			if err != nil && hasKey(err.Error()) {
				t.Errorf("the error holds the key: %v", err)
			}
		}
	}
	if _, err := New(Config{Kind: OpenAI, URL: "http://models.example/v1", Model: "m"}); err != nil {
		t.Errorf("no key over plain http: %v", err)
	}
}

func TestEndpointURLs(t *testing.T) {
	for _, c := range []struct {
		kind      Kind
		url, want string
	}{
		{OpenAI, "https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions"},
		{OpenAI, "https://api.openai.com/v1/", "https://api.openai.com/v1/chat/completions"},
		{OpenAI, "http://localhost:11434/v1/chat/completions", "http://localhost:11434/v1/chat/completions"},
		{Anthropic, "https://api.anthropic.com", "https://api.anthropic.com/v1/messages"},
		{Anthropic, "https://api.anthropic.com/v1", "https://api.anthropic.com/v1/messages"},
		{Anthropic, "https://api.anthropic.com/v1/messages/", "https://api.anthropic.com/v1/messages"},
	} {
		if got := endpointURL(c.kind, c.url); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.kind, c.url, got, c.want)
		}
	}
}

// A local endpoint without a key gets no auth header at all.
func TestNoKeySendsNoAuthHeader(t *testing.T) {
	for _, kind := range []Kind{OpenAI, Anthropic} {
		e := newEndpoint(t, reply{status: http.StatusTeapot})
		events(t, newClientWith(t, Config{Kind: kind, URL: e.URL}), hello())
		h := (<-e.got).header
		if h.Get("Authorization") != "" || h.Get("x-api-key") != "" {
			t.Errorf("%s: auth headers without a key: %v", kind, h)
		}
		if want := map[Kind]string{Anthropic: anthropicVersion}[kind]; h.Get("anthropic-version") != want {
			t.Errorf("%s: anthropic-version %q", kind, h.Get("anthropic-version"))
		}
	}
}

func TestNoHTTPClientFailsEveryRequest(t *testing.T) {
	c, err := New(Config{Kind: OpenAI, URL: "https://api.openai.com/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = events(t, c, hello())
	var le *Error
	if !errors.As(err, &le) || !strings.Contains(le.Message, "no HTTP client") {
		t.Errorf("error %v", err)
	}
}

func TestRateLimitCarriesRetryAfter(t *testing.T) {
	date := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	for header, want := range map[string][2]time.Duration{"20": {20 * time.Second, 20 * time.Second}, date: {80 * time.Second, 90 * time.Second}, "": {}} {
		e := newEndpoint(t, reply{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": header, "Content-Type": "application/json"},
			body: []string{`{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`}})
		_, err := events(t, newClient(t, Anthropic, e), hello())
		var le *Error
		if !errors.As(err, &le) || le.Status != 429 || !strings.Contains(le.Message, "429") || !strings.Contains(le.Message, "per-minute rate limit") {
			t.Fatalf("error %#v, want a 429 with the endpoint's message", err)
		}
		if le.RetryAfter < want[0] || le.RetryAfter > want[1] {
			t.Errorf("Retry-After %q: %v, want %v to %v", header, le.RetryAfter, want[0], want[1])
		}
	}
}

// An endpoint that echoes the key in its refusal does not get it into
// the error or the log, even where the cap would cut it.
func TestRefusalEchoingTheKeyIsScrubbed(t *testing.T) {
	for _, pad := range []int{0, maxProviderMessageRunes - 20} {
		for _, kind := range []Kind{OpenAI, Anthropic} {
			body := fmt.Sprintf(`{"error":{"message":"%s Incorrect API key provided: %s"}}`, strings.Repeat("x", pad), testKey)
			e := newEndpoint(t, reply{status: http.StatusUnauthorized, header: map[string]string{"Content-Type": "application/json"}, body: []string{body}})
			var logs bytes.Buffer
			c := newClientWith(t, Config{Kind: kind, URL: e.URL, Key: testKey, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			_, err := events(t, c, hello())
			var le *Error
			if !errors.As(err, &le) || le.Status != 401 || !strings.Contains(le.Message, "401") {
				t.Fatalf("%s: error %v, want a 401", kind, err)
			}
			if hasKey(le.Message) || hasKey(logs.String()) {
				t.Errorf("%s: the key leaked: error %q, log %q", kind, le.Message, logs.String())
			}
		}
	}
}

func TestJSONAnswerInsteadOfAStream(t *testing.T) {
	e := newEndpoint(t, reply{header: map[string]string{"Content-Type": "application/json"}, body: []string{`{"choices":[]}`}})
	_, err := events(t, newClient(t, OpenAI, e), hello())
	var le *Error
	if !errors.As(err, &le) || !strings.Contains(le.Message, "not a stream") {
		t.Errorf("error %v", err)
	}
}

func TestOversizedEventIsRefused(t *testing.T) {
	big := `{"choices":[{"index":0,"delta":{"content":"` + strings.Repeat("a", MaxEventBytes) + `"}}]}`
	for name, body := range map[string][]string{
		"one line":   sse(big),
		"data lines": {strings.Repeat("data: "+strings.Repeat("a", 1000)+"\n", MaxEventBytes/1000+1) + "\n"},
	} {
		e := newEndpoint(t, reply{body: body})
		_, err := events(t, newClient(t, OpenAI, e), hello())
		var le *Error
		if !errors.As(err, &le) || !strings.Contains(le.Message, fmt.Sprint(MaxEventBytes)) {
			t.Errorf("%s: error %v, want one naming the cap", name, err)
		}
	}
}

func TestOversizedAnswerIsRefused(t *testing.T) {
	piece := sse(`{"choices":[{"index":0,"delta":{"content":"` + strings.Repeat("a", 64<<10) + `"}}]}`)[0]
	body := make([]string, MaxResponseBytes/len(piece)+2)
	for i := range body {
		body[i] = piece
	}
	e := newEndpoint(t, reply{body: append(body, sse("[DONE]")...)})
	_, err := Collect(newClient(t, OpenAI, e).Stream(t.Context(), hello()))
	var le *Error
	if !errors.As(err, &le) || !strings.Contains(le.Message, fmt.Sprint(MaxResponseBytes)) {
		t.Errorf("error %v, want one naming the cap", err)
	}
}

func TestTooManyToolCallsAreRefused(t *testing.T) {
	var calls []string
	for i := range MaxToolCalls + 1 {
		calls = append(calls, fmt.Sprintf(`{"index":%d,"id":"c%d","function":{"name":"f","arguments":"{}"}}`, i, i))
	}
	e := newEndpoint(t, reply{body: sse(`{"choices":[{"index":0,"delta":{"tool_calls":[`+strings.Join(calls, ",")+`]}}]}`, "[DONE]")})
	_, err := events(t, newClient(t, OpenAI, e), hello())
	var le *Error
	if !errors.As(err, &le) || !strings.Contains(le.Message, fmt.Sprint(MaxToolCalls)) {
		t.Errorf("error %v, want one naming the cap", err)
	}
}

func TestOversizedToolArgumentsAreRefused(t *testing.T) {
	start := named("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}`)
	piece := named("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"`+strings.Repeat("a", 100<<10)+`"}}`)
	body := []string{start}
	for range MaxArgumentBytes/(100<<10) + 1 {
		body = append(body, piece)
	}
	e := newEndpoint(t, reply{body: body})
	_, err := events(t, newClient(t, Anthropic, e), hello())
	var le *Error
	if !errors.As(err, &le) || !strings.Contains(le.Message, "arguments") {
		t.Errorf("error %v, want one about the arguments' size", err)
	}
}

// awaitGone waits until the endpoint saw its client go away.
func awaitGone(t *testing.T, e *endpoint) {
	t.Helper()
	select {
	case <-e.gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the endpoint never saw the connection close")
	}
}

func TestLeavingTheLoopClosesTheConnection(t *testing.T) {
	e := newEndpoint(t, reply{hold: true, body: sse(`{"choices":[{"index":0,"delta":{"content":"Hel"}}]}`, `{"choices":[{"index":0,"delta":{"content":"lo"}}]}`)})
	for ev, err := range newClient(t, OpenAI, e).Stream(t.Context(), hello()) {
		if err != nil || ev.Text != "Hel" {
			t.Fatalf("first event %+v, %v", ev, err)
		}
		break
	}
	awaitGone(t, e)
}

func TestCancellingClosesTheConnection(t *testing.T) {
	e := newEndpoint(t, reply{hold: true, body: []string{named("message_start", `{"type":"message_start","message":{"model":"m","usage":{}}}`),
		named("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`)}})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var last error
	n := 0
	for _, err := range newClient(t, Anthropic, e).Stream(ctx, hello()) {
		n++
		cancel()
		last = err
	}
	if n != 2 || !errors.Is(last, context.Canceled) {
		t.Errorf("%d events ending with %v; want the text then context.Canceled", n, last)
	}
	awaitGone(t, e)
}

func TestRequestsNoProviderTakesAreRefused(t *testing.T) {
	for name, req := range map[string]*Request{
		"nil":                  nil,
		"unknown role":         {Messages: []Message{{Role: "system", Parts: []Part{TextPart("x")}}}},
		"assistant image":      {Messages: []Message{{Role: Assistant, Parts: []Part{ImagePart("image/png", []byte("x"))}}}},
		"user tool call":       {Messages: []Message{{Role: User, Parts: []Part{ToolCallPart(ToolCall{ID: "c", Name: "f"})}}}},
		"call without id":      {Messages: []Message{{Role: Assistant, Parts: []Part{ToolCallPart(ToolCall{Name: "f"})}}}},
		"call with bad JSON":   {Messages: []Message{{Role: Assistant, Parts: []Part{ToolCallPart(ToolCall{ID: "c", Name: "f", Arguments: []byte("{")})}}}},
		"result without call":  {Messages: []Message{{Role: User, Parts: []Part{ToolResultPart(ToolResult{})}}}},
		"audio in result":      {Messages: []Message{{Role: User, Parts: []Part{ToolResultPart(ToolResult{CallID: "c", Parts: []Part{AudioPart("audio/wav", []byte("x"))}})}}}},
		"image without data":   {Messages: []Message{{Role: User, Parts: []Part{ImagePart("image/png", nil)}}}},
		"tool without name":    {Messages: hello().Messages, Tools: []Tool{{}}},
		"named choice no name": {Messages: hello().Messages, Tools: []Tool{{Name: "f"}}, ToolChoice: ToolChoice{Mode: ToolNamed}},
	} {
		for _, kind := range []Kind{OpenAI, Anthropic} {
			e := newEndpoint(t, reply{})
			_, err := events(t, newClient(t, kind, e), req)
			if _, ok := errors.AsType[*Error](err); !ok {
				t.Errorf("%s, %s: error %v, want a refusal", name, kind, err)
			}
			select {
			case <-e.got:
				t.Errorf("%s, %s: the request was sent", name, kind)
			default:
			}
		}
	}
}

// A reader that stops at the end (as Collect does) still gets the answer
// logged, without the key.
func TestAnAnswerIsLoggedWithoutTheKey(t *testing.T) {
	e := newEndpoint(t, reply{body: openAITranscript()})
	var logs bytes.Buffer
	c := newClientWith(t, Config{Kind: OpenAI, URL: e.URL, Key: testKey, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if _, err := Collect(c.Stream(t.Context(), hello())); err != nil {
		t.Fatal(err)
	}
	if l := logs.String(); !strings.Contains(l, "model answered") || !strings.Contains(l, "stop=tool_use") || !strings.Contains(l, "output_tokens=41") || hasKey(l) {
		t.Errorf("log %q", l)
	}
}
