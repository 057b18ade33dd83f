package store

import (
	"encoding/json"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func subscriptionChange(server string, sub wire.Subscription) wire.Change {
	b, _ := json.Marshal(sub)
	return wire.Change{Kind: wire.KindSubscription, Server: server, Key: sub.URI, Value: b}
}

// readsOf lists the resource.read ops sent for uri.
func readsOf(t *testing.T, s *fakeSocket, uri string) []wire.Frame {
	t.Helper()
	var out []wire.Frame
	for _, f := range s.frames() {
		var a wire.ReadResourceArgs
		if f.Op == wire.OpReadResource && json.Unmarshal(f.Data, &a) == nil && a.URI == uri {
			out = append(out, f)
		}
	}
	return out
}

func TestAnUpdatedSubscriptionIsReadAgainOnlyWhenItWasRead(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	id := c.ReadResource("s1", "test://clock")
	s.result(id, wire.ReadResourceResult{Contents: []wire.ResourceContents{{URI: "test://clock", Text: "one"}}})
	s.delta(2, subscriptionChange("s1", wire.Subscription{URI: "test://clock"}),
		subscriptionChange("s1", wire.Subscription{URI: "test://other"}))
	if n := len(readsOf(t, s, "test://clock")); n != 1 {
		t.Fatalf("subscribing read again: %d reads", n)
	}
	s.delta(3, subscriptionChange("s1", wire.Subscription{URI: "test://clock", Updated: "2026-01-01T00:00:01.000Z"}),
		subscriptionChange("s1", wire.Subscription{URI: "test://other", Updated: "2026-01-01T00:00:01.000Z"}))
	reads := readsOf(t, s, "test://clock")
	if len(reads) != 2 {
		t.Fatalf("an update made %d reads, want a second one", len(reads))
	}
	if n := len(readsOf(t, s, "test://other")); n != 0 {
		t.Errorf("a resource never read here was read %d times", n)
	}
	s.result(reads[1].ID, wire.ReadResourceResult{Contents: []wire.ResourceContents{{URI: "test://clock", Text: "two"}}})
	calls := c.View().CallsTo("s1", wire.CallKindResource)
	if len(calls) != 1 || calls[0].Text != "two" {
		t.Errorf("reads shown: %+v, want the new one only", calls)
	}
	snap := c.View().Snapshot
	if sub, ok := SubscriptionOf(snap.ServerByID("s1"), "test://clock"); !ok || sub.Updated == "" {
		t.Errorf("subscription %+v", sub)
	}
}

func TestEmbeddedResourceShowsItsOwnType(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	id := c.GetPrompt("s1", "doc", nil)
	text, _ := json.Marshal(wire.ResourceContents{URI: "file:///n.json", MIMEType: "application/json", Text: `{"a":1}`})
	blob, _ := json.Marshal(wire.ResourceContents{URI: "file:///p.png", MIMEType: "image/png", Blob: "iVBORw=="})
	s.result(id, wire.GetPromptResult{Messages: []wire.PromptMessage{
		{Role: wire.RoleUser, Content: wire.Content{Type: wire.ContentResource, Resource: text}},
		{Role: wire.RoleUser, Content: wire.Content{Type: wire.ContentResource, Resource: blob}},
	}})
	call := c.View().Calls[0]
	want := "user: {\"a\":1}\n\nuser: [embedded resource file:///p.png, image/png, 4 bytes]"
	if call.Text != want {
		t.Errorf("text %q, want %q", call.Text, want)
	}
	if len(call.Contents) != 2 || call.Contents[0].MIMEType != "application/json" || call.Contents[1].Blob == "" {
		t.Errorf("contents %+v", call.Contents)
	}
}

func TestCompleteDecodesAndCancelSendsOpCancel(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	var got *wire.CompleteResult
	id := c.Complete(wire.CompleteArgs{Server: "s1", Ref: wire.CompleteRef{Type: wire.RefPrompt, Name: "p"}, Argument: "a", Value: "x"},
		func(res *wire.CompleteResult, e *wire.Error) { got = res })
	c.CancelOp(id)
	if f := s.lastFrame(); f.Op != wire.OpCancel {
		t.Fatalf("cancel sent %+v", f)
	}
	s.result(id, wire.CompleteResult{Values: []string{"x1", "x2"}, Total: 9, HasMore: true})
	if got == nil || len(got.Values) != 2 || got.Total != 9 || !got.HasMore {
		t.Errorf("result %+v", got)
	}
}

func TestOnlyTheNewestCallsKeepTheirBlobs(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	for range keptBlobCalls + 2 {
		id := c.ReadResource("s1", "file:///p.png")
		s.result(id, wire.ReadResourceResult{Contents: []wire.ResourceContents{{URI: "file:///p.png", MIMEType: "image/png", Blob: "AAAA"}}})
	}
	calls := c.View().Calls
	for i, call := range calls {
		kept := call.Contents[0].Blob != ""
		if kept != (i < keptBlobCalls) {
			t.Errorf("call %d (newest first) keeps its blob: %v", i, kept)
		}
		if !kept && call.Contents[0].Text != DroppedBlob {
			t.Errorf("a dropped blob says %q", call.Contents[0].Text)
		}
	}
}
