package replica

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestRequestIDsAreThoseOfRequestsOnly(t *testing.T) {
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`:                                               `7`,
		`{"jsonrpc":"2.0","id":"a","method":"ping"}`:                                                   `"a"`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`:                                       ``,
		`{"jsonrpc":"2.0","id":3,"result":{}}`:                                                         ``,
		`{"jsonrpc":"2.0","id":null,"method":"x"}`:                                                     ``,
		`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"},{"id":2,"method":"c"}]`: `1,2`,
		`not json`: ``,
		``:         ``,
	} {
		var got []string
		for _, id := range requestIDs([]byte(body)) {
			got = append(got, string(id))
		}
		if strings.Join(got, ",") != want {
			t.Errorf("requestIDs(%s) = %v, want %s", body, got, want)
		}
	}
}

// breaking is an event stream that breaks off after its first event.
type breaking struct{ sent bool }

func (b *breaking) Read(p []byte) (int, error) {
	if b.sent {
		return 0, errors.New("connection reset by peer")
	}
	b.sent = true
	return copy(p, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"), nil
}

func (b *breaking) Close() error { return nil }

func TestAStreamThatBreaksOffEndsWithTheErrorsOfItsRequests(t *testing.T) {
	resp := &http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: &breaking{}}
	endInterrupted(resp, requestIDs([]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call"}`)))
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("the stream still fails: %v", err)
	}
	want := `event: message` + "\n" + `data: {"error":{"code":-32603,"message":"` + Interrupted + `"},"id":4,"jsonrpc":"2.0"}`
	if !strings.HasPrefix(string(b), "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}") || !strings.Contains(string(b), want) {
		t.Errorf("the stream reads\n%s\nwant the progress, then\n%s", b, want)
	}

	plain := &http.Response{Header: http.Header{"Content-Type": {"application/json"}}, Body: &breaking{}}
	endInterrupted(plain, requestIDs([]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call"}`)))
	if _, err := io.ReadAll(plain.Body); err == nil {
		t.Error("a JSON answer that breaks off reads as whole")
	}
}
