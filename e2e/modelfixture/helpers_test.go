package modelfixture_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
)

// waitFor bounds every wait of these tests.
const waitFor = 10 * time.Second

// sse is one server-sent event.
type sse struct {
	Event, Data string
}

// sseReader reads server-sent events.
type sseReader struct{ br *bufio.Reader }

// next reads the next event; io.EOF after the last.
func (r sseReader) next() (sse, error) {
	var e sse
	var data []string
	for {
		line, err := r.br.ReadString('\n')
		if err != nil {
			if err == io.EOF && line == "" && (e.Event != "" || len(data) > 0) {
				err = io.ErrUnexpectedEOF // an event without its blank line
			}
			return e, err
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && (e.Event != "" || len(data) > 0):
			e.Data = strings.Join(data, "\n")
			return e, nil
		case strings.HasPrefix(line, "event:"):
			e.Event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
}

// readSSE reads every event of body; err is nil when the body ended
// cleanly.
func readSSE(body io.Reader) ([]sse, error) {
	r := sseReader{bufio.NewReader(body)}
	var events []sse
	for {
		e, err := r.next()
		if err == io.EOF {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		events = append(events, e)
	}
}

// post sends body as JSON to url with the headers, for ctx.
func post(ctx context.Context, url string, headers map[string]string, body any) (*http.Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return http.DefaultClient.Do(req)
}

// mustPost is post that fails the test on an error, and closes the body
// when the test ends.
func mustPost(ctx context.Context, t *testing.T, url string, headers map[string]string, body any) *http.Response {
	t.Helper()
	resp, err := post(ctx, url, headers, body)
	if err != nil {
		t.Fatalf("post %s: %v", url, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// testCtx is a context that ends with the test, or after waitFor.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	t.Cleanup(cancel)
	return ctx
}

// ctxOf is a context for a request the test cancels.
func ctxOf(t *testing.T) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	t.Cleanup(cancel)
	return ctx, cancel
}

// ask posts a request of one user message to the fixture's endpoint of
// p, streaming or not.
func ask(ctx context.Context, t *testing.T, m *modelfixture.Server, p modelfixture.Provider, stream bool) *http.Response {
	t.Helper()
	url, headers, body := request(m, p, stream, "")
	return mustPost(ctx, t, url, headers, body)
}

// request is the URL, headers and body of a request of one user message,
// with the key unless it is "".
func request(m *modelfixture.Server, p modelfixture.Provider, stream bool, key string) (string, map[string]string, map[string]any) {
	body := map[string]any{"model": "m1", "max_tokens": 100, "stream": stream,
		"messages": []any{map[string]any{"role": "user", "content": "Hi"}}}
	if p == modelfixture.OpenAI {
		if stream {
			body["stream_options"] = map[string]any{"include_usage": true}
		}
		headers := map[string]string{}
		if key != "" {
			headers["Authorization"] = "Bearer " + key
		}
		return m.OpenAIURL() + "/chat/completions", headers, body
	}
	headers := map[string]string{"anthropic-version": "2023-06-01"}
	if key != "" {
		headers["x-api-key"] = key
	}
	return m.AnthropicURL() + "/v1/messages", headers, body
}

// decode decodes JSON text into a new T.
func decode[T any](t *testing.T, data string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		t.Fatalf("decode %q: %v", data, err)
	}
	return v
}

// await waits for ch, failing the test after waitFor.
func await(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitFor):
		t.Fatalf("%s did not happen within %v", what, waitFor)
	}
}

// providers are both, for tests that run against each.
var providers = []modelfixture.Provider{modelfixture.OpenAI, modelfixture.Anthropic}
