package elicitfixture_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/shared/schema"
	"github.com/switchboard-mcp/switchboard/shared/urlsafe"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// open opens a URL as the person's browser would, completing the fixture's
// elicitation.
func open(t *testing.T, rawURL string) {
	t.Helper()
	resp, err := http.Get(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", rawURL, resp.Status)
	}
}

func TestEveryFormVariantIsAskedAndAnswered(t *testing.T) {
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	r := newRelay(t, broker.Config{})
	id := r.add(fx, "forms")
	d := r.open()
	for _, f := range elicitfixture.Forms {
		t.Run(f.Name, func(t *testing.T) {
			d := d.in(t)
			call := d.call(id, "form_"+f.Name)
			a := d.asks(1)[0]
			if a.Kind != wire.AskForm || a.From != wire.AskFromElicitation || a.Message != f.Message || a.Server != id || a.ServerName != "forms" {
				t.Fatalf("ask %+v", a)
			}
			form, err := schema.Parse(a.Schema)
			if err != nil {
				t.Fatalf("the ask's schema: %v", err)
			}
			if len(form.Fields) != len(f.Example) {
				t.Errorf("%d fields shown, the example fills %d", len(form.Fields), len(f.Example))
			}
			d.answer(a.ID, wire.ActionAccept, f.Example)
			d.asks(0)
			o := d.outcome(call)
			if o.Action != wire.ActionAccept {
				t.Fatalf("the server got %+v", o)
			}
			for k, v := range f.Example {
				if !jsonEqual(o.Content[k], v) {
					t.Errorf("the server got %s = %v, want %v", k, o.Content[k], v)
				}
			}
		})
	}
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestElicitationFirstAnswerWins(t *testing.T) {
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	r := newRelay(t, broker.Config{})
	id := r.add(fx, "forms")
	one, two := r.open(), r.open()
	call := one.call(id, "form_enum")
	a := one.asks(1)[0]
	if b := two.asks(1)[0]; b.ID != a.ID {
		t.Fatalf("the dashboards show %s and %s", a.ID, b.ID)
	}
	// Both answer at once; ops run concurrently, so either may win.
	fromTwo := two.Send(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionAccept, Content: map[string]any{"color": "red"}})
	fromOne := one.Send(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionDecline})
	won := map[wire.Action]bool{wire.ActionAccept: fromTwo.Wait().Err == nil, wire.ActionDecline: fromOne.Wait().Err == nil}
	if won[wire.ActionAccept] == won[wire.ActionDecline] {
		t.Fatalf("answers taken: %v, want exactly one", won)
	}
	for _, rep := range []store.Reply{fromTwo.Wait(), fromOne.Wait()} {
		if rep.Err != nil && rep.Err.Code != wire.CodeNotFound {
			t.Errorf("the losing answer: %+v, want not_found", rep.Err)
		}
	}
	one.asks(0)
	two.asks(0)
	o := one.outcome(call)
	if !won[o.Action] || (o.Action == wire.ActionAccept && o.Content["color"] != "red") {
		t.Fatalf("the server got %+v, want the winning answer", o)
	}
}

func TestPendingAskIsDeliveredAgainAfterAReconnect(t *testing.T) {
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	r := newRelay(t, broker.Config{})
	id := r.add(fx, "forms")
	caller := r.open() // the tab that called the tool stays open; closing it would cancel the call
	call := caller.call(id, "form_boolean")
	resumed := r.open()
	a := resumed.asks(1)[0]
	epoch := resumed.state().Epoch
	resumed.Drop() // another tab loses its socket and comes back, resuming from what it applied
	if h := resumed.Hellos(); len(h) != 2 || h[1].Epoch != epoch || h[1].Seq == 0 {
		t.Fatalf("the tab came back saying %+v, want a resume in epoch %s", h, epoch)
	}

	reloaded := r.open()
	if got := reloaded.asks(1)[0]; got.ID != a.ID {
		t.Fatalf("after a reload the dashboard shows %+v, want %s", got, a.ID)
	}
	reloaded.answer(a.ID, wire.ActionAccept, map[string]any{"subscribe": false})
	resumed.asks(0) // the resumed dashboard sees it settled
	reloaded.asks(0)
	if o := caller.outcome(call); o.Action != wire.ActionAccept || o.Content["subscribe"] != false {
		t.Fatalf("the server got %+v", o)
	}
}

func TestNobodyAnsweringSendsCancelAtTheDeadline(t *testing.T) {
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	r := newRelay(t, broker.Config{Timeout: 300 * time.Millisecond})
	id := r.add(fx, "forms")
	d := r.open()
	call := d.call(id, "form_enum")
	a := d.asks(1)[0]
	if a.Deadline.Sub(a.Created) != 300*time.Millisecond {
		t.Errorf("deadline %v after creation, want 300ms", a.Deadline.Sub(a.Created))
	}
	if o := d.outcome(call); o.Action != wire.ActionCancel {
		t.Fatalf("the server got %+v, want cancel", o)
	}
	d.asks(0)
}

func TestServerWithdrawingItsQuestionWithdrawsTheAsk(t *testing.T) {
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	r := newRelay(t, broker.Config{})
	id := r.add(fx, "forms")
	d := r.open()
	call := d.Send(wire.OpCallTool, wire.CallToolArgs{Server: id, Name: "cancel_self", Arguments: json.RawMessage(`{"afterMs":200,"holdMs":300}`)})
	a := d.asks(1)[0]
	d.asks(0)
	rep := d.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionDecline})
	if rep.Err == nil || rep.Err.Code != wire.CodeNotFound {
		t.Errorf("answer to a withdrawn ask: %s, want not_found", said(rep))
	}
	if o := d.outcome(call); !strings.Contains(o.Error, "deadline exceeded") {
		t.Errorf("the server's question ended with %+v", o)
	}
}

func TestConnectionDropWithdrawsTheAsk(t *testing.T) {
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	r := newRelay(t, broker.Config{})
	id := r.add(fx, "forms")
	d := r.open()
	call := d.call(id, "form_enum")
	d.asks(1)
	if err := fx.Stop(); err != nil {
		t.Fatal(err)
	}
	d.asks(0)
	if rep := call.Wait(); rep.Err == nil {
		t.Errorf("the call answered %s after the connection dropped", said(rep))
	}
}

func TestRequestInAModeNotAdvertisedIsInvalidParams(t *testing.T) {
	fx := elicitfixture.Start(t, elicitfixture.Options{IgnoreCapabilities: true})
	r := newRelay(t, broker.Config{})
	id := r.add(fx, "liar")
	d := r.open()
	srv, _ := r.s.Server(id)
	if err := srv.SetAskModes(context.Background(), wire.SetAskModesArgs{Server: id, Form: true}); err != nil {
		t.Fatal(err)
	}
	d.Until("reconnecting", func(v store.View) bool { return v.Snapshot.ServerByID(id).State != wire.StateReady })
	d.Until("reconnected", func(v store.View) bool { return v.Snapshot.ServerByID(id).State == wire.StateReady })
	o := d.outcome(d.call(id, "url_consent"))
	if o.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("the server got %+v, want -32602", o)
	}
	if asks := d.state().Asks; len(asks) != 0 {
		t.Errorf("asks shown: %+v", asks)
	}
}

func TestURLConsentWaitsForTheServersCompletion(t *testing.T) {
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	r := newRelay(t, broker.Config{})
	id := r.add(fx, "consent")
	d := r.open()
	call := d.call(id, "url_consent")
	a := d.asks(1)[0]
	if a.Kind != wire.AskURL || a.From != wire.AskFromElicitation || !strings.HasPrefix(a.URL, fx.CompleteURL("consent-")) || a.ElicitationID == "" {
		t.Fatalf("ask %+v", a)
	}
	rep := d.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionAccept, Content: map[string]any{"token": "x"}})
	if rep.Err == nil || rep.Err.Code != wire.CodeBadRequest {
		t.Fatalf("URL answer with content: %s, want bad_request", said(rep))
	}
	d.answer(a.ID, wire.ActionAccept, nil)
	if o := d.outcome(call); o.Action != wire.ActionAccept || o.Content != nil {
		t.Fatalf("the server got %+v, want accept without content", o)
	}
	d.Until("the ask waits", oneWaiting)
	open(t, a.URL)
	d.asks(0)
}

func TestWaitingURLCanBeDismissed(t *testing.T) {
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	r := newRelay(t, broker.Config{})
	id := r.add(fx, "consent")
	d := r.open()
	d.call(id, "url_consent")
	a := d.asks(1)[0]
	d.answer(a.ID, wire.ActionAccept, nil)
	d.Until("the ask waits", oneWaiting)
	if rep := d.Op(wire.OpDismissAsk, wire.AskArgs{Ask: a.ID}); rep.Err != nil {
		t.Fatalf("dismiss: %+v", rep.Err)
	}
	d.asks(0)
}

func TestURLRequiredIsRetriedOnceCompleted(t *testing.T) {
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	r := newRelay(t, broker.Config{})
	id := r.add(fx, "guarded")
	d := r.open()
	call := d.call(id, "url_required")
	a := d.asks(1)[0]
	if a.Kind != wire.AskURL || a.From != wire.AskFromURLRequired || a.URL != fx.CompleteURL(elicitfixture.SetupID) || a.ElicitationID != elicitfixture.SetupID {
		t.Fatalf("ask %+v", a)
	}
	d.answer(a.ID, wire.ActionAccept, nil)
	d.Until("the ask waits", oneWaiting)
	open(t, a.URL)
	if text := d.text(call); text != elicitfixture.SetupDone {
		t.Fatalf("after completion the call answered %q, want %q", text, elicitfixture.SetupDone)
	}
	d.asks(0)
}

func TestURLRequiredAgainIsAnErrorNotALoop(t *testing.T) {
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	r := newRelay(t, broker.Config{})
	id := r.add(fx, "stubborn")
	d := r.open()
	call := d.call(id, "url_required_again")
	a := d.asks(1)[0]
	d.answer(a.ID, wire.ActionAccept, nil)
	d.Until("the ask waits", oneWaiting)
	if rep := d.Op(wire.OpCompleteAsk, wire.AskArgs{Ask: a.ID}); rep.Err != nil {
		t.Fatalf("complete: %+v", rep.Err)
	}
	rep := call.Wait()
	if rep.Err == nil || rep.Err.Code != wire.CodeUpstream || !strings.Contains(rep.Err.Message, "asked again") {
		t.Fatalf("call: %s, want an upstream error saying the server asked again", said(rep))
	}
	if asks := d.state().Asks; len(asks) != 0 {
		t.Errorf("asks shown after giving up: %+v", asks)
	}
}

func TestInputRequestsUseTheSameAsks(t *testing.T) {
	fx := elicitfixture.Start(t, elicitfixture.Options{Stateless: true})
	r := newRelay(t, broker.Config{})
	id := r.add(fx, "stateless")
	d := r.open()
	if srv := d.server(id); srv.ProtocolVersion != "2026-07-28" {
		t.Fatalf("negotiated %q, want the stateless protocol", srv.ProtocolVersion)
	}
	call := d.call(id, "input_pair")
	asks := d.asks(2)
	byKind := map[wire.AskKind]wire.Ask{}
	for _, a := range asks {
		if a.From != wire.AskFromInput || a.Server != id {
			t.Errorf("ask %+v, want one from an input request", a)
		}
		byKind[a.Kind] = a
	}
	if byKind[wire.AskURL].URL != elicitfixture.TermsURL {
		t.Fatalf("asks %+v", asks)
	}
	d.answer(byKind[wire.AskForm].ID, wire.ActionAccept, map[string]any{"plan": "team"})
	d.answer(byKind[wire.AskURL].ID, wire.ActionAccept, nil)
	var got map[string]elicitfixture.Outcome
	if err := json.Unmarshal([]byte(d.text(call)), &got); err != nil {
		t.Fatal(err)
	}
	if got["plan"].Action != wire.ActionAccept || got["plan"].Content["plan"] != "team" || got["terms"].Action != wire.ActionAccept {
		t.Fatalf("the server got %+v", got)
	}
}

func TestHostileRequests(t *testing.T) {
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	r := newRelay(t, broker.Config{})
	id := r.add(fx, "hostile")
	d := r.open()

	for _, tool := range []string{"hostile_javascript", "hostile_http"} {
		o := d.outcome(d.call(id, tool))
		reason, _ := o.Meta["switchboard/reason"].(string)
		if o.Action != wire.ActionDecline || !strings.Contains(reason, "URL refused") {
			t.Errorf("%s: the server got %+v, want decline with a reason", tool, o)
		}
		// Shown as refused, with the reason and without the URL, until dismissed.
		a := d.asks(1)[0]
		if a.State != wire.AskRefused || a.URL != "" || !strings.Contains(a.Refusal, "URL refused") {
			t.Errorf("%s: shown %+v, want refused with the reason and no URL", tool, a)
		}
		if rep := d.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionAccept}); rep.Err == nil || rep.Err.Code != wire.CodeBadRequest {
			t.Errorf("%s: accepting the refused ask: %s", tool, said(rep))
		}
		if rep := d.Op(wire.OpDismissAsk, wire.AskArgs{Ask: a.ID}); rep.Err != nil {
			t.Fatalf("%s: dismiss: %+v", tool, rep.Err)
		}
		d.asks(0)
	}

	for _, tc := range []struct{ tool, url string }{
		{"hostile_homograph", elicitfixture.HomographURL},
		{"hostile_punycode", elicitfixture.PunycodeURL},
	} {
		call := d.call(id, tc.tool)
		a := d.asks(1)[0]
		u, err := url.Parse(a.URL)
		if err != nil || a.URL != tc.url {
			t.Fatalf("%s: ask URL %q, want %q unchanged", tc.tool, a.URL, tc.url)
		}
		if len(urlsafe.HostWarnings(u.Hostname())) == 0 {
			t.Errorf("%s: no warning for host %q: the dashboard must show one", tc.tool, u.Hostname())
		}
		d.answer(a.ID, wire.ActionDecline, nil)
		if o := d.outcome(call); o.Action != wire.ActionDecline {
			t.Errorf("%s: the server got %+v", tc.tool, o)
		}
		d.asks(0)
	}

	if o := d.outcome(d.call(id, "hostile_schema")); o.Code != jsonrpc.CodeInvalidParams || !strings.Contains(o.Error, `"not" is not supported`) {
		t.Errorf("hostile_schema: the server got %+v, want -32602 naming the keyword", o)
	}
	if asks := d.state().Asks; len(asks) != 0 {
		t.Errorf("hostile_schema: shown %+v", asks)
	}

	call := d.call(id, "hostile_long_message")
	a := d.asks(1)[0]
	if n := utf8.RuneCountInString(a.Message); n > 5000 || !strings.Contains(a.Message, "cut this message") {
		t.Errorf("message of %d runes, want it cut with a note", n)
	}
	if strings.ContainsAny(a.Message, "\u202e\x1b") {
		t.Error("the message kept a bidi override or an escape")
	}
	d.answer(a.ID, wire.ActionAccept, map[string]any{"subscribe": true})
	if o := d.outcome(call); o.Action != wire.ActionAccept {
		t.Errorf("the server got %+v", o)
	}
}
