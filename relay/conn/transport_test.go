package conn

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestBodyOverTheLimitFailsOrRefusesItsCall(t *testing.T) {
	const limit = 8
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call"}`
	for _, tc := range []struct {
		body, request string
		want          string // what is read; "" for errBodyTooLarge
	}{
		{strings.Repeat("a", limit), "", strings.Repeat("a", limit)},
		{strings.Repeat("a", limit+1), "", ""},
		{strings.Repeat("a", limit+1), `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""},
		{strings.Repeat("a", limit), call, strings.Repeat("a", limit)},
		{strings.Repeat("a", 10*limit), call, `{"error":{"code":-32603,"message":"the relay refused an answer over 8 bytes"},"id":7,"jsonrpc":"2.0"}`},
	} {
		req, note := oversizeRequest(t, tc.request)
		b := &callBody{ReadCloser: io.NopCloser(strings.NewReader(tc.body)), req: req, limit: limit}
		got, err := io.ReadAll(b)
		if tc.want == "" {
			if !errors.Is(err, errBodyTooLarge) {
				t.Errorf("%d bytes answering %q: read %q, %v; want errBodyTooLarge", len(tc.body), tc.request, got, err)
			}
		} else if err != nil || string(got) != tc.want {
			t.Errorf("%d bytes answering %q: read %q, %v; want %q", len(tc.body), tc.request, got, err, tc.want)
		}
		if over := len(tc.body) > limit; note.refused.Load() != over {
			t.Errorf("%d bytes: noted refused %v, want %v", len(tc.body), note.refused.Load(), over)
		}
	}
}

func TestEventOverTheLimitEndsAsARefusalOfTheCall(t *testing.T) {
	const limit = 100
	small := "id: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\r\n\r\n"
	huge := "id: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":\"" + strings.Repeat("x", 10*limit) + "\"}\n\n"
	req, note := oversizeRequest(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call"}`)
	l := &eventLimiter{ReadCloser: io.NopCloser(strings.NewReader(small + huge)), req: req, limit: limit}
	got, err := io.ReadAll(l)
	if err != nil {
		t.Fatal(err)
	}
	cut := huge[:limit]
	want := small + cut + ":\n" + refusedEvent + "\n" +
		`data: {"error":{"code":-32603,"message":"the relay refused an answer over 100 bytes"},"id":7,"jsonrpc":"2.0"}` + "\n\n"
	if string(got) != want {
		t.Errorf("read\n%q\nwant\n%q", got, want)
	}
	if !note.refused.Load() {
		t.Error("the refusal was not noted")
	}

	// Events each under the limit pass whole, however long the stream.
	many := strings.Repeat(small, 100)
	l = &eventLimiter{ReadCloser: io.NopCloser(strings.NewReader(many)), req: req, limit: limit}
	if got, err := io.ReadAll(l); err != nil || string(got) != many {
		t.Errorf("a stream of small events: read %d bytes, %v; want %d", len(got), err, len(many))
	}
}

// oversizeRequest is a request posting body (a GET when body is empty)
// under a context with a fresh oversize note.
func oversizeRequest(t *testing.T, body string) (*http.Request, *oversizeNote) {
	t.Helper()
	ctx, note := withOversizeNote(context.Background())
	method := http.MethodGet
	if body != "" {
		method = http.MethodPost
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return req, note
}

func TestConnFailsWhenServerEndsTheNotificationStreamEarly(t *testing.T) {
	f := fullFixture(t, statelessEra)
	var mu sync.Mutex
	var cancels []context.CancelFunc
	inner := f.handler
	f.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(methodHeader) == methodListen {
			ctx, cancel := context.WithCancel(r.Context())
			mu.Lock()
			cancels = append(cancels, cancel)
			mu.Unlock()
			r = r.WithContext(ctx)
		}
		inner.ServeHTTP(w, r)
	})
	f.stop()
	f.restart()
	_, r, _ := startReady(t, f)

	mu.Lock()
	for _, cancel := range cancels {
		cancel()
	}
	mu.Unlock()
	failed := r.AwaitState(wire.StateFailed)
	if failed.Error != "connection lost: "+errStreamClosed.Error() {
		t.Errorf("error %q", failed.Error)
	}
	r.AwaitState(wire.StateReady)
}
