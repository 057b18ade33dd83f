package broker

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/metrics"
	"github.com/switchboard-mcp/switchboard/relay/metrics/metricstest"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// waitFor bounds every wait of these tests.
const waitFor = 5 * time.Second

// sink records what the broker shows, as a session would.
type sink struct {
	mu     sync.Mutex
	asks   map[string]wire.Ask
	refuse bool
	puts   chan wire.Ask // every PutAsk
	gone   chan string   // every RemoveAsk
}

func newSink() *sink {
	return &sink{asks: map[string]wire.Ask{}, puts: make(chan wire.Ask, 100), gone: make(chan string, 100)}
}

func (s *sink) PutAsk(a wire.Ask) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse {
		return false
	}
	s.asks[a.ID] = a
	s.puts <- a
	return true
}

func (s *sink) RemoveAsk(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.asks, id)
	s.gone <- id
}

func (s *sink) shown() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.asks)
}

// nextPut returns the next ask shown or updated.
func (s *sink) nextPut(t *testing.T) wire.Ask {
	t.Helper()
	select {
	case a := <-s.puts:
		return a
	case <-time.After(waitFor):
		t.Fatal("no ask shown")
	}
	return wire.Ask{}
}

// nextGone returns the id of the next ask removed.
func (s *sink) nextGone(t *testing.T) string {
	t.Helper()
	select {
	case id := <-s.gone:
		return id
	case <-time.After(waitFor):
		t.Fatal("no ask removed")
	}
	return ""
}

const nameSchema = `{"type":"object","properties":{
	"name":{"type":"string","minLength":2},
	"age":{"type":"integer","minimum":0},
	"plan":{"type":"string","enum":["free","pro"]}
},"required":["name"]}`

func formAsk() wire.Ask {
	return wire.Ask{Server: "s1", ServerName: "one", Kind: wire.AskForm, From: wire.AskFromElicitation,
		Message: "Who are you?", Schema: json.RawMessage(nameSchema)}
}

func urlAsk(elicitationID string) wire.Ask {
	return wire.Ask{Server: "s1", ServerName: "one", Kind: wire.AskURL, From: wire.AskFromElicitation,
		Message: "Sign in", URL: "https://example.com/consent", ElicitationID: elicitationID}
}

// result is what Ask returned.
type result struct {
	ans Answer
	err error
}

// ask runs Ask in the background.
func ask(ctx context.Context, b *Broker, a wire.Ask) <-chan result {
	out := make(chan result, 1)
	go func() {
		ans, err := b.Ask(ctx, a)
		out <- result{ans, err}
	}()
	return out
}

func await(t *testing.T, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(waitFor):
		t.Fatal("Ask did not return")
	}
	return result{}
}

func wireCode(err error) wire.Code {
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return ""
}

func TestAskShowsThePendingAskWithItsDeadline(t *testing.T) {
	s := newSink()
	b := New(s, Config{Timeout: time.Minute})
	before := time.Now()
	ask(context.Background(), b, formAsk())
	a := s.nextPut(t)
	if a.ID == "" || a.State != wire.AskPending || a.Server != "s1" || a.ServerName != "one" || a.Message != "Who are you?" {
		t.Fatalf("shown ask %+v", a)
	}
	if a.Created.Before(before) || a.Deadline.Sub(a.Created) != time.Minute {
		t.Errorf("created %v, deadline %v: want the deadline a minute after creation", a.Created, a.Deadline)
	}
}

func TestAskFirstAnswerWins(t *testing.T) {
	s := newSink()
	b := New(s, Config{})
	done := ask(context.Background(), b, formAsk())
	id := s.nextPut(t).ID

	answers := []wire.AnswerAskArgs{
		{Ask: id, Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}},
		{Ask: id, Action: wire.ActionDecline},
	}
	errs := make(chan error, len(answers))
	for _, a := range answers {
		go func() { errs <- b.Answer(a) }()
	}
	var won, refused int
	for range answers {
		err := <-errs
		switch {
		case err == nil:
			won++
		case wireCode(err) == wire.CodeNotFound:
			refused++
		default:
			t.Errorf("answer: %v", err)
		}
	}
	if won != 1 || refused != 1 {
		t.Fatalf("%d answers won and %d were refused, want one each", won, refused)
	}
	r := await(t, done)
	if r.err != nil || (r.ans.Action != wire.ActionAccept && r.ans.Action != wire.ActionDecline) {
		t.Fatalf("Ask = %+v, %v", r.ans, r.err)
	}
	if r.ans.Action == wire.ActionAccept && r.ans.Content["name"] != "Ada" {
		t.Errorf("accepted content %v", r.ans.Content)
	}
	if gone := s.nextGone(t); gone != id {
		t.Errorf("removed %s, want %s", gone, id)
	}
	if err := b.Answer(wire.AnswerAskArgs{Ask: id, Action: wire.ActionCancel}); wireCode(err) != wire.CodeNotFound {
		t.Errorf("answer to a settled ask: %v, want not_found", err)
	}
}

func TestAskAnswersCancelAtTheDeadline(t *testing.T) {
	before := metricstest.Scrape(t)
	s := newSink()
	b := New(s, Config{Timeout: 30 * time.Millisecond})
	done := ask(context.Background(), b, formAsk())
	id := s.nextPut(t).ID
	r := await(t, done)
	if r.err != nil || r.ans.Action != wire.ActionCancel || r.ans.Content != nil {
		t.Fatalf("Ask = %+v, %v; want cancel", r.ans, r.err)
	}
	after := metricstest.Scrape(t)
	// The counters are the process's: an ask an earlier test left behind
	// may move them too, so each must have moved by at least this ask.
	for _, event := range []string{metrics.AskRaised, metrics.AskTimedOut} {
		if got := after.Moved(before, "switchboard_asks_total", map[string]string{"kind": "form", "event": event}); got < 1 {
			t.Errorf("switchboard_asks_total{kind=form,event=%s} moved by %v, want at least 1", event, got)
		}
	}
	if gone := s.nextGone(t); gone != id {
		t.Errorf("removed %s, want %s", gone, id)
	}
	if err := b.Answer(wire.AnswerAskArgs{Ask: id, Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}}); wireCode(err) != wire.CodeNotFound {
		t.Errorf("answer after the deadline: %v, want not_found", err)
	}
}

func TestAskIsWithdrawnWhenItsContextEnds(t *testing.T) {
	s := newSink()
	b := New(s, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	done := ask(ctx, b, formAsk())
	id := s.nextPut(t).ID
	cancel()
	r := await(t, done)
	if !errors.Is(r.err, context.Canceled) {
		t.Fatalf("Ask = %+v, %v; want context.Canceled", r.ans, r.err)
	}
	if gone := s.nextGone(t); gone != id {
		t.Errorf("removed %s, want %s", gone, id)
	}
}

func TestAnswerIsChecked(t *testing.T) {
	tests := []struct {
		name    string
		ask     wire.Ask
		answer  wire.AnswerAskArgs // Ask is filled in
		code    wire.Code          // "" means accepted
		message string             // a part of the refusal
		content map[string]any     // what reaches the server when accepted
	}{
		{name: "valid form", ask: formAsk(),
			answer:  wire.AnswerAskArgs{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada", "age": 36.0, "plan": "pro"}},
			content: map[string]any{"name": "Ada", "age": 36.0, "plan": "pro"}},
		{name: "blank optional values are left out", ask: formAsk(),
			answer:  wire.AnswerAskArgs{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada", "plan": "", "age": nil}},
			content: map[string]any{"name": "Ada"}},
		{name: "accepted form without fields", ask: wire.Ask{Kind: wire.AskForm, Schema: json.RawMessage(`{"type":"object"}`)},
			answer:  wire.AnswerAskArgs{Action: wire.ActionAccept},
			content: map[string]any{}},
		{name: "invalid form names the fields", ask: formAsk(),
			answer: wire.AnswerAskArgs{Action: wire.ActionAccept, Content: map[string]any{"name": "A", "age": -1.0, "extra": true}},
			code:   wire.CodeBadRequest, message: "age: must be at least 0; name: must be at least 2 characters"},
		{name: "missing required field", ask: formAsk(),
			answer: wire.AnswerAskArgs{Action: wire.ActionAccept, Content: map[string]any{"name": ""}},
			code:   wire.CodeBadRequest, message: "name: is required"},
		{name: "decline", ask: formAsk(), answer: wire.AnswerAskArgs{Action: wire.ActionDecline}},
		{name: "decline with content", ask: formAsk(),
			answer: wire.AnswerAskArgs{Action: wire.ActionDecline, Content: map[string]any{"name": "Ada"}},
			code:   wire.CodeBadRequest, message: "only an accepted answer"},
		{name: "unknown action", ask: formAsk(), answer: wire.AnswerAskArgs{Action: "maybe"},
			code: wire.CodeBadRequest, message: "accept, decline or cancel"},
		{name: "url accepted", ask: urlAsk("e1"), answer: wire.AnswerAskArgs{Action: wire.ActionAccept}},
		{name: "url with content", ask: urlAsk("e1"),
			answer: wire.AnswerAskArgs{Action: wire.ActionAccept, Content: map[string]any{"token": "x"}},
			code:   wire.CodeBadRequest, message: "no content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSink()
			b := New(s, Config{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := ask(ctx, b, tt.ask)
			tt.answer.Ask = s.nextPut(t).ID
			err := b.Answer(tt.answer)
			if tt.code != "" {
				if wireCode(err) != tt.code || !strings.Contains(err.Error(), tt.message) {
					t.Fatalf("Answer = %v, want %s mentioning %q", err, tt.code, tt.message)
				}
				if s.shown() != 1 {
					t.Error("a refused answer settled the ask")
				}
				return
			}
			if err != nil {
				t.Fatalf("Answer = %v", err)
			}
			r := await(t, done)
			if r.err != nil || r.ans.Action != tt.answer.Action {
				t.Fatalf("Ask = %+v, %v", r.ans, r.err)
			}
			if !jsonEqual(r.ans.Content, tt.content) {
				t.Errorf("content %v, want %v", r.ans.Content, tt.content)
			}
		})
	}
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestAnswerToAnUnknownAskIsRefused(t *testing.T) {
	b := New(newSink(), Config{})
	if err := b.Answer(wire.AnswerAskArgs{Ask: "nope", Action: wire.ActionCancel}); wireCode(err) != wire.CodeNotFound {
		t.Fatalf("Answer = %v, want not_found", err)
	}
	for _, op := range []func(string) error{b.Dismiss, b.MarkDone} {
		if err := op("nope"); wireCode(err) != wire.CodeNotFound {
			t.Errorf("op on an unknown ask = %v, want not_found", err)
		}
	}
}

func TestAskRefusesFormsItCannotShow(t *testing.T) {
	tests := []struct {
		name string
		ask  wire.Ask
		code wire.Code
	}{
		{"nested schema", wire.Ask{Kind: wire.AskForm, Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","properties":{}}}}`)}, wire.CodeBadRequest},
		{"no schema", wire.Ask{Kind: wire.AskForm}, wire.CodeBadRequest},
		{"unknown kind", wire.Ask{Kind: "sample"}, wire.CodeBadRequest},
	}
	for _, tt := range tests {
		s := newSink()
		_, err := New(s, Config{}).Ask(context.Background(), tt.ask)
		if wireCode(err) != tt.code {
			t.Errorf("%s: Ask = %v, want %s", tt.name, err, tt.code)
		}
		if s.shown() != 0 {
			t.Errorf("%s: the ask was shown", tt.name)
		}
	}
}

func TestAsksBeyondTheCapAreAnsweredCancel(t *testing.T) {
	s := newSink()
	b := New(s, Config{MaxPending: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ask(ctx, b, formAsk())
	ask(ctx, b, formAsk())
	s.nextPut(t)
	s.nextPut(t)
	ans, err := b.Ask(ctx, formAsk())
	if err != nil || ans.Action != wire.ActionCancel {
		t.Fatalf("third Ask = %+v, %v; want cancel", ans, err)
	}
	if s.shown() != 2 {
		t.Errorf("%d asks shown, want 2", s.shown())
	}
}

func TestAskTheSinkRefusesIsAnsweredCancel(t *testing.T) {
	s := newSink()
	s.refuse = true
	ans, err := New(s, Config{}).Ask(context.Background(), formAsk())
	if err != nil || ans.Action != wire.ActionCancel {
		t.Fatalf("Ask = %+v, %v; want cancel", ans, err)
	}
}

// acceptURL shows a URL ask, accepts it and returns its id and answer.
func acceptURL(t *testing.T, s *sink, b *Broker, a wire.Ask) (string, Answer) {
	t.Helper()
	done := ask(context.Background(), b, a)
	id := s.nextPut(t).ID
	if err := b.Answer(wire.AnswerAskArgs{Ask: id, Action: wire.ActionAccept}); err != nil {
		t.Fatal(err)
	}
	r := await(t, done)
	if r.err != nil || r.ans.Action != wire.ActionAccept || r.ans.Wait == nil {
		t.Fatalf("Ask = %+v, %v; want accept with a Wait", r.ans, r.err)
	}
	return id, r.ans
}

// waitIn runs wait in the background.
func waitIn(ctx context.Context, ans Answer) <-chan error {
	out := make(chan error, 1)
	go func() { out <- ans.Wait(ctx) }()
	return out
}

func awaitErr(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(waitFor):
		t.Fatal("Wait did not return")
	}
	return nil
}

func TestAcceptedURLWaitsForTheServersCompletion(t *testing.T) {
	s := newSink()
	b := New(s, Config{WaitTimeout: time.Hour})
	id, ans := acceptURL(t, s, b, urlAsk("e1"))
	waiting := s.nextPut(t)
	if waiting.ID != id || waiting.State != wire.AskWaiting || !waiting.Deadline.After(time.Now().Add(50*time.Minute)) {
		t.Fatalf("after accept the ask is %+v, want waiting with the wait deadline", waiting)
	}
	if err := b.Answer(wire.AnswerAskArgs{Ask: id, Action: wire.ActionDecline}); wireCode(err) != wire.CodeNotFound {
		t.Errorf("a second answer to a waiting ask: %v, want not_found", err)
	}
	waited := waitIn(context.Background(), ans)
	b.Completed("s2", "e1")      // another server's elicitation of the same id
	b.Completed("s1", "unknown") // ignored
	select {
	case err := <-waited:
		t.Fatalf("Wait returned %v before the completion", err)
	default:
	}
	b.Completed("s1", "e1")
	if err := awaitErr(t, waited); err != nil {
		t.Fatalf("Wait = %v, want nil", err)
	}
	if gone := s.nextGone(t); gone != id {
		t.Errorf("removed %s, want %s", gone, id)
	}
}

func TestWaitingURLEnds(t *testing.T) {
	tests := []struct {
		name string
		end  func(b *Broker, id string) error
		want error
	}{
		{"marked done by the person", func(b *Broker, id string) error { return b.MarkDone(id) }, nil},
		{"dismissed", func(b *Broker, id string) error { return b.Dismiss(id) }, ErrDismissed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSink()
			b := New(s, Config{})
			id, ans := acceptURL(t, s, b, urlAsk("e1"))
			waited := waitIn(context.Background(), ans)
			if err := tt.end(b, id); err != nil {
				t.Fatal(err)
			}
			if err := awaitErr(t, waited); !errors.Is(err, tt.want) {
				t.Fatalf("Wait = %v, want %v", err, tt.want)
			}
			if err := tt.end(b, id); wireCode(err) != wire.CodeNotFound {
				t.Errorf("again: %v, want not_found", err)
			}
		})
	}
}

func TestWaitingURLTimesOut(t *testing.T) {
	s := newSink()
	b := New(s, Config{WaitTimeout: 30 * time.Millisecond})
	_, ans := acceptURL(t, s, b, urlAsk("e1"))
	if err := awaitErr(t, waitIn(context.Background(), ans)); !errors.Is(err, ErrWaitTimeout) {
		t.Fatalf("Wait = %v, want ErrWaitTimeout", err)
	}
}

func TestWaitingURLIsWithdrawnWithTheWaiter(t *testing.T) {
	s := newSink()
	b := New(s, Config{})
	id, ans := acceptURL(t, s, b, urlAsk("e1"))
	s.nextPut(t) // waiting
	ctx, cancel := context.WithCancel(context.Background())
	waited := waitIn(ctx, ans)
	cancel()
	if err := awaitErr(t, waited); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait = %v, want context.Canceled", err)
	}
	if gone := s.nextGone(t); gone != id {
		t.Errorf("removed %s, want %s", gone, id)
	}
}

func TestPendingAskCannotBeDismissed(t *testing.T) {
	s := newSink()
	b := New(s, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ask(ctx, b, urlAsk("e1"))
	id := s.nextPut(t).ID
	for _, op := range []func(string) error{b.Dismiss, b.MarkDone} {
		if err := op(id); wireCode(err) != wire.CodeBadRequest {
			t.Errorf("op on a pending ask = %v, want bad_request", err)
		}
	}
}

func TestCompletionBeforeAcceptEndsTheWaitAtOnce(t *testing.T) {
	s := newSink()
	b := New(s, Config{})
	done := ask(context.Background(), b, urlAsk("e1"))
	id := s.nextPut(t).ID
	b.Completed("s1", "e1")
	if err := b.Answer(wire.AnswerAskArgs{Ask: id, Action: wire.ActionAccept}); err != nil {
		t.Fatal(err)
	}
	r := await(t, done)
	if err := awaitErr(t, waitIn(context.Background(), r.ans)); err != nil {
		t.Fatalf("Wait = %v, want nil", err)
	}
	if s.shown() != 0 {
		t.Error("the completed ask is still shown")
	}
}
