package broker

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func hostileURLAsk(url string) wire.Ask {
	a := urlAsk("e1")
	a.URL = url
	return a
}

func TestRefusedURLIsDeclinedAtOnceAndShownWithoutTheURL(t *testing.T) {
	tests := []struct {
		url, reason string
	}{
		{"javascript:alert(1)", `scheme "javascript" (only http and https open)`},
		{"data:text/html,<b>x</b>", `scheme "data"`},
		{"file:///etc/passwd", `scheme "file"`},
		{"http://example.com/", "plain http to example.com"},
	}
	for _, tt := range tests {
		s := newSink()
		b := New(s, Config{})
		_, err := b.Ask(context.Background(), hostileURLAsk(tt.url))
		if wireCode(err) != wire.CodeInvalidURL || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("%s: Ask = %v, want invalid_url saying %q", tt.url, err, tt.reason)
		}
		a := s.nextPut(t)
		if a.State != wire.AskRefused || a.URL != "" || !strings.Contains(a.Refusal, tt.reason) ||
			!strings.HasPrefix(a.Refusal, "URL refused: ") {
			t.Errorf("%s: shown %+v, want refused with the reason and no URL", tt.url, a)
		}
		if a.Message != "Sign in" || a.ServerName != "one" || a.ID == "" {
			t.Errorf("%s: shown %+v, want the message, server name and an id", tt.url, a)
		}
	}
}

func TestRefusedAskGoesAfterRefusedFor(t *testing.T) {
	s := newSink()
	b := New(s, Config{RefusedFor: 30 * time.Millisecond})
	start := time.Now()
	if _, err := b.Ask(context.Background(), hostileURLAsk("javascript:alert(1)")); err == nil {
		t.Fatal("Ask accepted a javascript: URL")
	}
	id := s.nextPut(t).ID
	if gone := s.nextGone(t); gone != id {
		t.Fatalf("removed %s, want %s", gone, id)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("removed after %v, before RefusedFor", d)
	}
	if err := b.Dismiss(id); wireCode(err) != wire.CodeNotFound {
		t.Errorf("Dismiss after removal = %v, want not_found", err)
	}
}

func TestRefusedAskCanBeDismissedButNotAnswered(t *testing.T) {
	s := newSink()
	b := New(s, Config{})
	b.Ask(context.Background(), hostileURLAsk("javascript:alert(1)"))
	id := s.nextPut(t).ID
	for _, action := range []wire.Action{wire.ActionAccept, wire.ActionDecline, wire.ActionCancel} {
		if err := b.Answer(wire.AnswerAskArgs{Ask: id, Action: action}); wireCode(err) != wire.CodeBadRequest {
			t.Errorf("%s on a refused ask = %v, want bad_request", action, err)
		}
	}
	if err := b.MarkDone(id); wireCode(err) != wire.CodeBadRequest {
		t.Errorf("MarkDone on a refused ask = %v, want bad_request", err)
	}
	b.Completed("s1", "e1") // must not touch it
	if s.shown() != 1 {
		t.Fatal("the refused ask went before it was dismissed")
	}
	if err := b.Dismiss(id); err != nil {
		t.Fatalf("Dismiss = %v", err)
	}
	if gone := s.nextGone(t); gone != id {
		t.Errorf("removed %s, want %s", gone, id)
	}
	if err := b.Dismiss(id); wireCode(err) != wire.CodeNotFound {
		t.Errorf("second Dismiss = %v, want not_found", err)
	}
}

func TestRefusedAsksCannotCrowdOutOthers(t *testing.T) {
	s := newSink()
	b := New(s, Config{MaxPending: 1})
	for i := range maxRefusedShown + 2 {
		if _, err := b.Ask(context.Background(), hostileURLAsk(fmt.Sprintf("javascript:alert(%d)", i))); wireCode(err) != wire.CodeInvalidURL {
			t.Fatalf("hostile ask %d = %v, want invalid_url", i, err)
		}
	}
	if n := s.shown(); n != maxRefusedShown {
		t.Errorf("%d refused asks shown, want %d", n, maxRefusedShown)
	}
	for range maxRefusedShown {
		s.nextPut(t)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go b.Ask(ctx, formAsk())
	if a := s.nextPut(t); a.Kind != wire.AskForm || a.State != wire.AskPending {
		t.Fatalf("shown %+v, want the pending form despite the refused asks", a)
	}
	if ans, err := b.Ask(context.Background(), formAsk()); err != nil || ans.Action != wire.ActionCancel {
		t.Errorf("form over the cap = %+v, %v; want cancel", ans, err)
	}
}
