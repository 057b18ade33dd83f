package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// answer is an endpoint that answers every request with a stream of the
// bytes body returns.
type answer func() []byte

func (a answer) RoundTrip(r *http.Request) (*http.Response, error) {
	r.Body.Close()
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       io.NopCloser(bytes.NewReader(a())),
		Request:    r,
	}, nil
}

// FuzzStream has a model endpoint answer any stream of
// events, in OpenAI's format or Anthropic's, and reads it as the chat does:
// events then at most one error, an [*Error], and nothing after it or
// after the end; the tool calls and their arguments within the limits; and
// Collect either assembles an answer whose calls have JSON object
// arguments, or fails with an [*Error].
func FuzzStream(f *testing.F) {
	f.Add(false, []byte(strings.Join(openAITranscript(), "")))
	f.Add(true, []byte(strings.Join(anthropicTranscript(), "")))
	f.Add(false, []byte(strings.Join(sse(`{"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}`, "[DONE]"), "")))
	f.Add(false, []byte(strings.Join(sse(`{"choices":[{"delta":{"tool_calls":[{"index":-1,"function":{"arguments":"x"}}]}}]}`, "[DONE]"), "")))
	f.Add(false, []byte("data: {\"error\":{\"message\":\"overloaded\"}}\n\n"))
	f.Add(true, []byte(named("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)))
	f.Add(true, []byte(named("content_block_delta", `{"type":"content_block_delta","index":9,"delta":{"type":"input_json_delta","partial_json":"{"}}`)+named("message_stop", `{"type":"message_stop"}`)))
	f.Add(true, []byte("data: {\"type\":\"message_stop\"}\r\n\r\n"))
	f.Add(false, []byte(": comment\nretry: 1\nid: 2\ndata:[DONE]\n\n"))
	f.Add(false, []byte("data: {\n\n"))

	var body []byte // the answer of the endpoint, for the input being run
	endpoint := &http.Client{Transport: answer(func() []byte { return body })}
	clients := map[bool]*Client{}
	for anthropic, kind := range map[bool]Kind{false: OpenAI, true: Anthropic} {
		c, err := New(Config{Kind: kind, URL: "http://127.0.0.1:1/v1", Model: "m", HTTPClient: endpoint})
		if err != nil {
			f.Fatal(err)
		}
		clients[anthropic] = c
	}

	f.Fuzz(func(t *testing.T, anthropic bool, b []byte) {
		body = b
		c := clients[anthropic]
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var failed, ended bool
		calls := 0
		args := map[int]int{}
		for ev, err := range c.Stream(ctx, hello()) {
			if failed || ended {
				t.Fatalf("%q: %+v, %v after the stream ended", b, ev, err)
			}
			if err != nil {
				var le *Error
				if ctx.Err() != nil {
					t.Fatalf("%q: the stream did not end in 10s: %v", b, err)
				}
				if !errors.As(err, &le) || le.Message == "" {
					t.Fatalf("%q: error %T %v", b, err, err)
				}
				failed = true
				continue
			}
			switch ev.Type {
			case EventToolCall:
				calls++
			case EventToolArgs:
				args[ev.Index] += len(ev.Text)
				if args[ev.Index] > MaxArgumentBytes {
					t.Fatalf("%q: %d bytes of arguments", b, args[ev.Index])
				}
			case EventEnd:
				ended = true
			case EventText, EventReasoning, EventUsage:
			default:
				t.Fatalf("%q: event %+v", b, ev)
			}
		}
		if calls > MaxToolCalls {
			t.Fatalf("%q: %d tool calls", b, calls)
		}
		if !failed && !ended {
			t.Fatalf("%q: the stream stopped without an end or an error", b)
		}
		res, err := Collect(c.Stream(ctx, hello()))
		if err != nil {
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("%q: Collect: %T %v", b, err, err)
			}
			return
		}
		for _, p := range res.Message.Parts {
			if p.Type == PartToolCall && (p.ToolCall == nil || len(p.ToolCall.Arguments) == 0 || p.ToolCall.Arguments[0] != '{') {
				t.Fatalf("%q: a tool call %+v", b, p.ToolCall)
			}
		}
	})
}
