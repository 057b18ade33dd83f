package modelfixture_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
)

// streamed is a stream of either provider put back together.
type streamed struct {
	text    string
	errType string
	ended   bool // the stream's end marker came: [DONE] or message_stop
	finish  string
}

// assemble puts a stream of p back together.
func assemble(t *testing.T, p modelfixture.Provider, events []sse) streamed {
	t.Helper()
	if p == modelfixture.OpenAI {
		s := assembleOpenAI(t, events)
		return streamed{text: s.text, errType: s.errType, ended: s.done, finish: s.finish}
	}
	s := assembleAnthropic(t, events)
	return streamed{text: s.text, errType: s.errType, ended: s.stopped, finish: s.stop}
}

// providerError is either provider's error body, as far as these tests
// read it.
type providerError struct {
	Type  string `json:"type"`
	Error struct {
		Type    string  `json:"type"`
		Message string  `json:"message"`
		Code    *string `json:"code"`
	} `json:"error"`
	RequestID string `json:"request_id"`
}

// readError reads an error response's body.
func readError(t *testing.T, resp *http.Response) providerError {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("an error body of %s: %v", resp.Header.Get("Content-Type"), err)
	}
	return decode[providerError](t, string(b))
}

func TestStatusErrorsCarryRetryAfter(t *testing.T) {
	wantType := map[modelfixture.Provider]string{modelfixture.OpenAI: "rate_limit_exceeded", modelfixture.Anthropic: "rate_limit_error"}
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			m := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{
				modelfixture.Status(http.StatusTooManyRequests, "", "7"),
				modelfixture.Status(http.StatusServiceUnavailable, `{"custom":true}`, ""),
				modelfixture.Text("ok"),
			}})
			resp := ask(testCtx(t), t, m, p, true)
			e := readError(t, resp)
			if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "7" ||
				e.Error.Type != wantType[p] || e.Error.Message == "" {
				t.Errorf("got %d, Retry-After %q, %+v", resp.StatusCode, resp.Header.Get("Retry-After"), e)
			}
			if p == modelfixture.Anthropic && (e.Type != "error" || e.RequestID != "req_fixture_1" || resp.Header.Get("request-id") != e.RequestID) {
				t.Errorf("an Anthropic error without its frame: %+v", e)
			}
			resp = ask(testCtx(t), t, m, p, true)
			if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusServiceUnavailable || string(b) != `{"custom":true}` {
				t.Errorf("got %d %s, want the body as scripted", resp.StatusCode, b)
			}
			events, err := readSSE(ask(testCtx(t), t, m, p, true).Body)
			if s := assemble(t, p, events); err != nil || s.text != "ok" || !s.ended {
				t.Errorf("the retry got %+v, %v", s, err)
			}
		})
	}
}

func TestStreamFailsMidway(t *testing.T) {
	wantType := map[modelfixture.Provider]string{modelfixture.OpenAI: "server_error", modelfixture.Anthropic: "overloaded_error"}
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			m := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{
				{Text: "abcdefgh", Chunk: 2, Fail: &modelfixture.Fail{After: 2}},
				{Text: "abcdefgh", Chunk: 2, Fail: &modelfixture.Fail{After: 100, Type: "api_error", Message: "boom"}},
			}})
			events, err := readSSE(ask(testCtx(t), t, m, p, true).Body)
			s := assemble(t, p, events)
			if err != nil || s.text != "abcd" || s.errType != wantType[p] || s.ended || s.finish != "" {
				t.Errorf("got %+v, %v", s, err)
			}
			if last := events[len(events)-1]; p == modelfixture.Anthropic && last.Event != "error" {
				t.Errorf("the stream ends with %q, want error", last.Event)
			}
			events, err = readSSE(ask(testCtx(t), t, m, p, true).Body)
			s = assemble(t, p, events)
			last := decode[providerError](t, events[len(events)-1].Data)
			if err != nil || s.text != "abcdefgh" || s.errType != "api_error" || last.Error.Message != "boom" || s.ended || s.finish != "" {
				t.Errorf("failing past the last delta: %+v, %+v, %v", s, last, err)
			}
		})
	}
}

func TestStreamIsCut(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			m := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{
				{Text: "abcdefgh", Chunk: 2, Fail: &modelfixture.Fail{After: 1, Cut: true}},
				{Text: "abcdefgh", Chunk: 2, Fail: &modelfixture.Fail{After: 3, Cut: true, Abort: true}},
			}})
			events, err := readSSE(ask(testCtx(t), t, m, p, true).Body)
			if s := assemble(t, p, events); err != nil || s.text != "ab" || s.ended || s.errType != "" {
				t.Errorf("a cut: %+v, %v; want a clean end of the body after one delta", s, err)
			}
			events, err = readSSE(ask(testCtx(t), t, m, p, true).Body)
			if s := assemble(t, p, events); err == nil || s.text != "abcdef" || s.ended {
				t.Errorf("an abort: %+v, %v; want a read error after three deltas", s, err)
			}
		})
	}
}

func TestEndlessStreamEndsWhenTheClientGoes(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			m := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{{Text: "hi", Endless: time.Millisecond}}})
			ctx, cancel := ctxOf(t)
			r := sseReader{bufio.NewReader(ask(ctx, t, m, p, true).Body)}
			for tokens := 0; tokens < 3; {
				e, err := r.next()
				if err != nil {
					t.Fatalf("the stream ended: %v", err)
				}
				if strings.Contains(e.Data, `"`+modelfixture.EndlessToken+`"`) {
					tokens++
				}
			}
			req := m.Next(t)
			cancel()
			await(t, req.Done(), "the stream's end")
			if !req.ClientGone() {
				t.Error("the stream ended, but not because the client went away")
			}
		})
	}
}

func TestHeldAnswersEndWhenTheClientGoes(t *testing.T) {
	for _, p := range providers {
		for name, reply := range map[string]modelfixture.Reply{
			"latency":             {Text: "late", Latency: time.Hour},
			"endless, not stream": {Text: "x", Endless: time.Millisecond},
		} {
			t.Run(string(p)+" "+name, func(t *testing.T) {
				m := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{reply}})
				ctx, cancel := ctxOf(t)
				errs := make(chan error, 1)
				go func() {
					url, headers, body := request(m, p, name == "latency", "")
					resp, err := post(ctx, url, headers, body)
					if err == nil {
						resp.Body.Close()
					}
					errs <- err
				}()
				req := m.Next(t)
				cancel()
				await(t, req.Done(), "the answer's end")
				if err := <-errs; err == nil || !req.ClientGone() {
					t.Errorf("the client got %v; gone %v", err, req.ClientGone())
				}
			})
		}
	}
}

func TestLatencyDelaysTheFirstByte(t *testing.T) {
	const latency = 30 * time.Millisecond
	for _, p := range providers {
		m := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{{Text: "hi", Latency: latency}}})
		start := time.Now()
		resp := ask(testCtx(t), t, m, p, true)
		if took := time.Since(start); took < latency {
			t.Errorf("%s: headers after %v, before the latency of %v", p, took, latency)
		}
		events, err := readSSE(resp.Body)
		if s := assemble(t, p, events); err != nil || s.text != "hi" || !s.ended {
			t.Errorf("%s: after the latency, %+v, %v", p, s, err)
		}
	}
}

func TestFaultsWithoutStream(t *testing.T) {
	wantStatus := map[modelfixture.Provider]int{modelfixture.OpenAI: http.StatusInternalServerError, modelfixture.Anthropic: 529}
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			m := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{
				{Text: "x", Fail: &modelfixture.Fail{}},
				{Text: "x", Fail: &modelfixture.Fail{Cut: true}},
			}})
			resp := ask(testCtx(t), t, m, p, false)
			if e := readError(t, resp); resp.StatusCode != wantStatus[p] || e.Error.Type == "" {
				t.Errorf("a failure: %d %+v", resp.StatusCode, e)
			}
			url, headers, body := request(m, p, false, "")
			resp, err := post(testCtx(t), url, headers, body)
			if err == nil {
				var v any
				err = json.NewDecoder(resp.Body).Decode(&v)
				resp.Body.Close()
			}
			if err == nil {
				t.Error("a cut answer was read whole")
			}
		})
	}
}

func TestStoppingEndsTheAnswersHeld(t *testing.T) {
	var req *modelfixture.Request
	var resp *http.Response
	ctx := testCtx(t) // the outer test's: the client stays while the fixture stops
	t.Run("held", func(t *testing.T) {
		m := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{{Text: "x", Endless: time.Millisecond}}})
		url, headers, body := request(m, modelfixture.Anthropic, true, "")
		var err error
		if resp, err = post(ctx, url, headers, body); err != nil {
			t.Fatal(err)
		}
		if _, err := (sseReader{bufio.NewReader(resp.Body)}).next(); err != nil {
			t.Fatal(err)
		}
		req = m.Next(t)
	}) // the fixture stops here, with its client still reading
	if resp == nil {
		t.FailNow()
	}
	defer resp.Body.Close()
	await(t, req.Done(), "the held answer's end")
	if ctx.Err() != nil {
		t.Error("the fixture stopped only once its client gave up")
	}
}
