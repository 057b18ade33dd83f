package store

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func formAsk(id string) wire.Ask {
	return wire.Ask{
		ID: id, Server: "s1", ServerName: "alpha", Kind: wire.AskForm, From: wire.AskFromElicitation,
		State: wire.AskPending, Message: "Who are you?",
		Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
	}
}

func urlAsk(id string) wire.Ask {
	return wire.Ask{
		ID: id, Server: "s1", ServerName: "alpha", Kind: wire.AskURL, From: wire.AskFromURLRequired,
		State: wire.AskPending, Message: "Sign in", URL: "https://auth.example.com/start", ElicitationID: "e-" + id,
	}
}

func askChange(a wire.Ask) wire.Change {
	b, _ := json.Marshal(a)
	return wire.Change{Kind: wire.KindAsk, Server: a.Server, Key: a.ID, Value: b}
}

func askRemoval(a wire.Ask) wire.Change {
	return wire.Change{Kind: wire.KindAsk, Server: a.Server, Key: a.ID, Remove: true}
}

func withAsks(asks ...wire.Ask) wire.Snapshot {
	s := twoServers()
	s.Asks = asks
	return s
}

// opFrame returns the last frame sent, checking that it is op with args
// decoding into args.
func opFrame(t *testing.T, s *fakeSocket, op wire.OpName, args any) wire.Frame {
	t.Helper()
	f := s.lastFrame()
	if f.Type != wire.TypeOp || f.Op != op {
		t.Fatalf("last frame = %+v, want op %s", f, op)
	}
	if err := json.Unmarshal(f.Data, args); err != nil {
		t.Fatalf("%s args %s: %v", op, f.Data, err)
	}
	return f
}

func askIDs(v View) []string {
	var ids []string
	for _, a := range v.Snapshot.Asks {
		ids = append(ids, a.ID)
	}
	return ids
}

func TestAsksArriveInOrderAndChangeWithoutTouchingEarlierViews(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, withAsks(formAsk("a1")))
	s.delta(2, askChange(urlAsk("a2")))
	before := c.View()
	if got := askIDs(before); len(got) != 2 || got[0] != "a1" || got[1] != "a2" {
		t.Fatalf("asks = %v, want [a1 a2]", got)
	}

	waiting := urlAsk("a2")
	waiting.State = wire.AskWaiting
	s.delta(3, askChange(waiting))
	if got := c.View().Snapshot.Asks[1].State; got != wire.AskWaiting {
		t.Errorf("a2 state = %q, want waiting", got)
	}
	if got := before.Snapshot.Asks[1].State; got != wire.AskPending {
		t.Errorf("an earlier view's ask changed to %q under the views' feet", got)
	}
	if len(c.View().Departed) != 0 {
		t.Errorf("departed = %+v, want none", c.View().Departed)
	}
}

func TestAskSettledElsewhereLeavesANoticeForAWhile(t *testing.T) {
	r, c := newRelay(t)
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	c.cfg.Now = func() time.Time { return now }
	s := connect(t, r, c, 1, withAsks(formAsk("a1"), formAsk("a2")))
	before := c.View()

	s.delta(2, askRemoval(formAsk("a1")))
	v := c.View()
	if got := askIDs(v); len(got) != 1 || got[0] != "a2" {
		t.Fatalf("asks = %v, want [a2]", got)
	}
	if len(before.Snapshot.Asks) != 2 || before.Snapshot.Asks[0].ID != "a1" {
		t.Errorf("an earlier view lost its asks: %+v", before.Snapshot.Asks)
	}
	if len(v.Departed) != 1 || v.Departed[0].Ask.ID != "a1" || v.Departed[0].Note != "" ||
		v.Departed[0].Err != nil || !v.Departed[0].At.Equal(now) {
		t.Fatalf("departed = %+v, want a notice for a1", v.Departed)
	}

	now = now.Add(DepartedFor)
	s.delta(3, askRemoval(formAsk("a2")))
	if d := c.View().Departed; len(d) != 1 || d[0].Ask.ID != "a2" {
		t.Errorf("departed = %+v, want only a2's notice once a1's ran out", d)
	}
}

func TestAnswerAskSendsTheActionAndContent(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, withAsks(formAsk("a1")))
	c.AnswerAsk("a1", wire.ActionAccept, map[string]any{"name": "Ada"})

	var args wire.AnswerAskArgs
	f := opFrame(t, s, wire.OpAnswerAsk, &args)
	if args.Ask != "a1" || args.Action != wire.ActionAccept || args.Content["name"] != "Ada" || len(args.Content) != 1 {
		t.Fatalf("answer args = %+v", args)
	}
	if st := c.View().AskStatus["a1"]; st.Sending != string(wire.ActionAccept) {
		t.Fatalf("status while sending = %+v", st)
	}
	c.AnswerAsk("a1", wire.ActionCancel, nil)
	if got := s.lastFrame().ID; got != f.ID {
		t.Errorf("a second answer was sent (%s) while the first was on its way", got)
	}

	// The relay removes the ask before it answers the op.
	s.delta(2, askRemoval(formAsk("a1")))
	s.result(f.ID, struct{}{})
	v := c.View()
	if len(v.Snapshot.Asks) != 0 || len(v.Departed) != 0 || len(v.AskStatus) != 0 {
		t.Errorf("after its own answer: asks %+v departed %+v status %+v, want all empty", v.Snapshot.Asks, v.Departed, v.AskStatus)
	}
}

func TestAnswerAnsweredBeforeTheRemovalLeavesNoNotice(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, withAsks(formAsk("a1")))
	c.AnswerAsk("a1", wire.ActionDecline, nil)
	var args wire.AnswerAskArgs
	f := opFrame(t, s, wire.OpAnswerAsk, &args)
	if args.Action != wire.ActionDecline || args.Content != nil {
		t.Fatalf("decline args = %+v", args)
	}
	s.result(f.ID, struct{}{})
	s.delta(2, askRemoval(formAsk("a1")))
	if v := c.View(); len(v.Departed) != 0 || len(v.AskStatus) != 0 {
		t.Errorf("departed %+v status %+v, want none", v.Departed, v.AskStatus)
	}
}

func TestRefusedAnswerIsShownOnTheAsk(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, withAsks(formAsk("a1")))
	c.AnswerAsk("a1", wire.ActionAccept, map[string]any{})
	id := s.lastFrame().ID
	s.recv(wire.ErrorFrame(id, wire.NewError(wire.CodeBadRequest, "the answer does not fit the form: name: is required")))

	st, ok := c.View().AskStatus["a1"]
	if !ok || st.Sending != "" || st.Err == nil || st.Err.Code != wire.CodeBadRequest {
		t.Fatalf("status = %+v, want the bad_request error", st)
	}
	c.AnswerAsk("a1", wire.ActionAccept, map[string]any{"name": "Ada"})
	if got := c.View().AskStatus["a1"]; got.Err != nil || got.Sending != string(wire.ActionAccept) {
		t.Errorf("status after a new answer = %+v, want sending with the old error cleared", got)
	}
}

func TestAnswerThatLostTheRaceTurnsIntoANoticeWithTheError(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, withAsks(formAsk("a1")))
	c.AnswerAsk("a1", wire.ActionAccept, map[string]any{"name": "Ada"})
	id := s.lastFrame().ID

	s.delta(2, askRemoval(formAsk("a1"))) // another tab's answer won
	if d := c.View().Departed; len(d) != 0 {
		t.Fatalf("departed = %+v before the answer came back", d)
	}
	s.recv(wire.ErrorFrame(id, wire.NewError(wire.CodeNotFound, "no such ask")))
	d := c.View().Departed
	if len(d) != 1 || d[0].Ask.ID != "a1" || d[0].Err == nil || d[0].Err.Code != wire.CodeNotFound {
		t.Fatalf("departed = %+v, want a1 with the not_found error", d)
	}
	if len(c.View().AskStatus) != 0 {
		t.Errorf("status = %+v for a departed ask", c.View().AskStatus)
	}
}

func TestAcceptedURLWaitsAndIsDismissedOrCompleted(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, withAsks(urlAsk("u1"), urlAsk("u2")))
	c.AnswerAsk("u1", wire.ActionAccept, nil)
	var args wire.AnswerAskArgs
	f := opFrame(t, s, wire.OpAnswerAsk, &args)
	if args.Ask != "u1" || args.Action != wire.ActionAccept || args.Content != nil {
		t.Fatalf("URL accept args = %+v", args)
	}
	waiting := urlAsk("u1")
	waiting.State = wire.AskWaiting
	s.delta(2, askChange(waiting))
	s.result(f.ID, struct{}{})

	c.DismissAsk("u1")
	var dismiss wire.AskArgs
	opFrame(t, s, wire.OpDismissAsk, &dismiss)
	if dismiss.Ask != "u1" || c.View().AskStatus["u1"].Sending != AskDismiss {
		t.Fatalf("dismiss args %+v status %+v", dismiss, c.View().AskStatus["u1"])
	}

	c.CompleteAsk("u2")
	var complete wire.AskArgs
	opFrame(t, s, wire.OpCompleteAsk, &complete)
	if complete.Ask != "u2" {
		t.Fatalf("complete args = %+v", complete)
	}
}

func TestAcceptedURLThatStopsWaitingLeavesANotice(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, withAsks(urlAsk("u1")))
	c.AnswerAsk("u1", wire.ActionAccept, nil)
	id := s.lastFrame().ID
	waiting := urlAsk("u1")
	waiting.State = wire.AskWaiting
	s.delta(2, askChange(waiting))
	s.result(id, struct{}{})

	s.delta(3, askRemoval(waiting)) // completed by the server, or timed out
	if d := c.View().Departed; len(d) != 1 || d[0].Ask.ID != "u1" {
		t.Errorf("departed = %+v, want a notice: the person did not end the wait", d)
	}
}

func TestRefuseAskDeclinesOnceAndKeepsTheReason(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, withAsks(urlAsk("u1")))
	c.RefuseAsk("u1", "scheme javascript is refused")
	var args wire.AnswerAskArgs
	f := opFrame(t, s, wire.OpAnswerAsk, &args)
	if args.Ask != "u1" || args.Action != wire.ActionDecline {
		t.Fatalf("refusal args = %+v", args)
	}
	sent := len(s.frames())
	s.result(f.ID, struct{}{})
	c.RefuseAsk("u1", "again")
	if n := len(s.frames()); n != sent {
		t.Errorf("a refused ask was declined again (%d frames, want %d)", n, sent)
	}

	s.delta(2, askRemoval(urlAsk("u1")))
	d := c.View().Departed
	if len(d) != 1 || d[0].Note != "scheme javascript is refused" {
		t.Errorf("departed = %+v, want the refusal's reason kept", d)
	}
}

func TestRemovedServerTakesItsAsksWithANotice(t *testing.T) {
	r, c := newRelay(t)
	other := formAsk("b1")
	other.Server = "s2"
	s := connect(t, r, c, 1, withAsks(formAsk("a1"), other))
	before := c.View()
	s.delta(2, wire.Change{Kind: wire.KindServer, Server: "s1", Key: "s1", Remove: true})

	v := c.View()
	if got := askIDs(v); len(got) != 1 || got[0] != "b1" {
		t.Fatalf("asks = %v, want [b1]", got)
	}
	if got := askIDs(before); len(got) != 2 || got[0] != "a1" || got[1] != "b1" {
		t.Errorf("an earlier view's asks became %v", got)
	}
	if len(v.Departed) != 1 || v.Departed[0].Ask.ID != "a1" {
		t.Errorf("departed = %+v, want a1", v.Departed)
	}
}

func TestFreshSnapshotNotesTheAsksItLacks(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, withAsks(formAsk("a1"), formAsk("a2")))
	s.drop(CloseAbnormal)
	r.fire()
	s2 := r.last()
	s2.open()
	s2.snapshot(9, withAsks(formAsk("a2"), formAsk("a3")))
	s2.synced(9)

	v := c.View()
	if got := askIDs(v); len(got) != 2 || got[0] != "a2" || got[1] != "a3" {
		t.Fatalf("asks = %v", got)
	}
	if len(v.Departed) != 1 || v.Departed[0].Ask.ID != "a1" {
		t.Errorf("departed = %+v, want a1", v.Departed)
	}
}

func TestAskOpWhileOfflineShowsTheError(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, withAsks(formAsk("a1")))
	s.drop(CloseAbnormal)
	c.AnswerAsk("a1", wire.ActionCancel, nil)
	if st := c.View().AskStatus["a1"]; st.Err == nil || st.Err.Code != CodeOffline || st.Sending != "" {
		t.Errorf("status = %+v, want the offline error", st)
	}
}

func TestRefusalThatCouldNotBeSentMayBeSentAgain(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, withAsks(urlAsk("u1")))
	s.drop(CloseAbnormal)
	c.RefuseAsk("u1", "refused")
	if st := c.View().AskStatus["u1"]; st.Err == nil || st.Err.Code != CodeOffline {
		t.Fatalf("status = %+v, want the offline error", st)
	}
	r.fire()
	s2 := r.last()
	s2.open()
	s2.snapshot(2, withAsks(urlAsk("u1")))
	s2.synced(2)
	c.RefuseAsk("u1", "refused")
	var args wire.AnswerAskArgs
	opFrame(t, s2, wire.OpAnswerAsk, &args)
	if args.Ask != "u1" || args.Action != wire.ActionDecline {
		t.Errorf("refusal args = %+v", args)
	}
}

func TestAsksARestartWithdrewSaySo(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 5, withAsks(formAsk("a1")))
	s.drop(wire.CloseShuttingDown)
	r.fire()
	s2 := r.last()
	s2.open()
	again := twoServers()
	again.Epoch = "e2" // the relay's session started anew
	s2.snapshot(1, again)
	if d := c.View().Departed; len(d) != 1 || d[0].Ask.ID != "a1" || d[0].Note != MsgRestarted {
		t.Fatalf("departed = %+v, want a1 withdrawn by the restart", d)
	}

	// The same epoch after a reconnection: what went, went for its own
	// reasons.
	s2.delta(2, askChange(formAsk("a2")))
	s2.drop(wire.CloseShuttingDown)
	r.fire()
	s3 := r.last()
	s3.open()
	s3.snapshot(3, again)
	if d := c.View().Departed; len(d) != 2 || d[1].Ask.ID != "a2" || d[1].Note != "" {
		t.Errorf("departed = %+v, want a2 gone without a note", d)
	}
}
