package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/relay/service"
	"github.com/switchboard-mcp/switchboard/shared/schema"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// askTimeout is the relay's deadline for an answer in the timeout tests:
// long enough to see the card on a busy machine (make test runs the parts
// at once on two cores); short enough to wait for.
const askTimeout = 6 * time.Second

// reloadAskTimeout is that deadline where the page is reloaded before the
// card is seen again: a reload starts the wasm anew, which took over 6 s
// under make test's load.
const reloadAskTimeout = 15 * time.Second

// formNamed returns the fixture's form called name.
func formNamed(t testing.TB, name string) elicitfixture.Form {
	t.Helper()
	for _, f := range elicitfixture.Forms {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("the fixture has no form %s", name)
	return elicitfixture.Form{}
}

// schemaFieldOrder lists a requested schema's fields in the server's order.
func schemaFieldOrder(t testing.TB, raw json.RawMessage) []string {
	t.Helper()
	form, err := schema.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(form.Fields))
	for i, f := range form.Fields {
		names[i] = f.Name
	}
	return names
}

func TestFormWithEveryFieldTypeIsFilledAndSubmitted(t *testing.T) {
	ap := startAskPage(t, elicitfixture.Options{})
	for _, f := range elicitfixture.Forms {
		t.Run(f.Name, func(t *testing.T) {
			p := ap.as(t)
			call := p.startCall("form_" + f.Name)
			id := p.waitNewCard(wire.AskForm, nil)
			p.waitAttr(cardSel(id), "data-state", string(wire.AskPending))
			if got := p.text(cardSel(id) + " .ask-message"); got != f.Message {
				t.Errorf("the card says %q, the server asked %q", got, f.Message)
			}
			shown := eval[[]string](p, fmt.Sprintf(`[...new Set([...document.querySelectorAll(%s)].map(e => e.dataset.field))]`,
				jsString(cardSel(id)+" .ask-field")))
			if want := schemaFieldOrder(t, f.Schema); !slices.Equal(shown, want) {
				t.Errorf("the card shows fields %v, the server asked for %v in that order", shown, want)
			}

			for name, d := range schemaDefaults(t, f.Schema) {
				if got := p.fieldValue(id, name, d.kind); !sameValue(got, d.value) {
					t.Errorf("field %s starts as %#v, want its default %#v", name, got, d.value)
				}
			}

			p.fillForm(id, f.Example)
			if f.Name == "every" {
				t.Logf("screenshot: %s", p.screenshotAsks("ask-form"))
			}
			p.click(cardSel(id) + " .ask-accept")
			p.waitGone(cardSel(id))

			o := p.waitOutcome(call)
			if o.Action != wire.ActionAccept {
				t.Fatalf("the server got %+v, want accept", o)
			}
			for _, d := range contentDiff(o.Content, f.Example) {
				t.Errorf("the server got %s", d)
			}
		})
	}
}

func TestFormValidationErrorShownAndNothingSent(t *testing.T) {
	p := startAskPage(t, elicitfixture.Options{})
	answers := p.watchSent(answerOp)

	call := p.startCall("form_strings")
	id := p.waitNewCard(wire.AskForm, nil)
	p.setField(id, "name", "A") // at least two characters
	p.setField(id, "email", "not-an-email")
	// Leaving a field shows its error before any submit.
	p.waitJS("an error on the name", fmt.Sprintf(`document.querySelector(%s)?.textContent !== ""`, jsString(fieldErrorSel(id, "name"))))

	p.click(cardSel(id) + " .ask-accept")
	p.waitJS("an error on the email", fmt.Sprintf(`document.querySelector(%s)?.textContent !== ""`, jsString(fieldErrorSel(id, "email"))))
	p.waitJS("the form's problem", fmt.Sprintf(`document.querySelector(%s)?.textContent !== ""`, jsString(cardSel(id)+" .ask-problem")))
	t.Logf("errors shown: name %q, email %q", p.text(fieldErrorSel(id, "name")), p.text(fieldErrorSel(id, "email")))
	if n := answers.count(); n != 0 {
		t.Fatalf("the page sent %d answers for an invalid form", n)
	}
	if st := p.callStatus(call); st != "pending" {
		t.Fatalf("the call is %s, want still waiting for the answer", st)
	}
	p.waitAttr(cardSel(id), "data-state", string(wire.AskPending))
	if got := eval[string](p.tab, fmt.Sprintf(`document.querySelector(%s).getAttribute("aria-invalid") ?? ""`,
		jsString(fieldSel(id, "email")))); got != "true" {
		t.Errorf("the email input has aria-invalid=%q, want true", got)
	}

	fixed := map[string]any{"name": "Ada", "email": "ada@example.com"}
	p.fillForm(id, fixed)
	for _, name := range []string{"name", "email"} {
		p.waitJS("no error on "+name, fmt.Sprintf(`document.querySelector(%s)?.textContent === ""`, jsString(fieldErrorSel(id, name))))
	}
	p.click(cardSel(id) + " .ask-accept")
	o := p.waitOutcome(call)
	if o.Action != wire.ActionAccept {
		t.Fatalf("the server got %+v, want accept", o)
	}
	for _, d := range contentDiff(o.Content, fixed) {
		t.Errorf("the server got %s", d)
	}
	if n := answers.count(); n != 1 {
		t.Errorf("the page sent %d answers, want the corrected one only", n)
	}

	// A number out of range.
	call = p.startCall("form_numbers")
	id = p.waitNewCard(wire.AskForm, []string{id})
	p.setField(id, "age", 200.0) // at most 150
	p.click(cardSel(id) + " .ask-accept")
	p.waitJS("an error on the age", fmt.Sprintf(`document.querySelector(%s)?.textContent !== ""`, jsString(fieldErrorSel(id, "age"))))
	if n := answers.count(); n != 1 {
		t.Fatalf("the page sent an answer with an age out of range (%d answers in all)", n)
	}
	p.setField(id, "age", 150.0)
	// The error leaves as the value is typed; click once the button has moved.
	p.waitJS("no error on the age", fmt.Sprintf(`document.querySelector(%s)?.textContent === ""`, jsString(fieldErrorSel(id, "age"))))
	p.click(cardSel(id) + " .ask-accept")
	o = p.waitOutcome(call)
	for _, d := range contentDiff(o.Content, map[string]any{"age": 150.0}) {
		t.Errorf("the server got %s", d)
	}
}

func TestDeclineAndEscapeCancel(t *testing.T) {
	p := startAskPage(t, elicitfixture.Options{})
	dot := rowSel(askerName) + " .ask-dot"

	call := p.startCall("form_boolean")
	id := p.waitNewCard(wire.AskForm, nil)
	p.waitAttr(dot, "data-count", "1")
	p.click(cardSel(id) + " .ask-decline")
	p.waitGone(cardSel(id))
	if o := p.waitOutcome(call); o.Action != wire.ActionDecline || len(o.Content) != 0 {
		t.Errorf("after Decline the server got %+v, want decline without content", o)
	}
	p.waitGone(dot)

	call = p.startCall("form_enum")
	id = p.waitNewCard(wire.AskForm, []string{id})
	// A card that arrives takes the focus, so Escape reaches it.
	p.waitJS("the focus in the card", fmt.Sprintf(`document.activeElement?.closest(%s) != null`, jsString(cardSel(id))))
	p.do("press Escape", chromedp.KeyEvent(kb.Escape))
	p.waitGone(cardSel(id))
	if o := p.waitOutcome(call); o.Action != wire.ActionCancel {
		t.Errorf("after Escape the server got %+v, want cancel", o)
	}
}

func TestFormWithdrawnByTheServerLeavesANotice(t *testing.T) {
	p := startAskPage(t, elicitfixture.Options{})
	call := p.startCallWith("cancel_self", `{"afterMs": 2000, "holdMs": 500}`)
	id := p.waitNewCard(wire.AskForm, nil)
	p.waitGone(cardSel(id))
	p.waitText(noticeSel(id), "no longer waiting")
	if o := p.waitOutcome(call); o.Error == "" {
		t.Errorf("the server got %+v, want its own withdrawal (an error)", o)
	}
}

func TestURLConsentOpensOnlyAfterClick(t *testing.T) {
	p := startAskPage(t, elicitfixture.Options{})
	call := p.startCall("url_consent")
	id := p.waitNewCard(wire.AskURL, nil)
	want := p.fx.CompleteURL("consent-1") // the fixture's first consent

	if got := p.text(cardSel(id) + " .ask-host"); got != "127.0.0.1" {
		t.Errorf("the card shows the host %q, want 127.0.0.1", got)
	}
	if got := p.text(cardSel(id) + " .ask-url"); got != want {
		t.Errorf("the card shows the URL %q, want %q", got, want)
	}
	if n := p.count(cardSel(id) + " .ask-warning"); n != 0 {
		t.Errorf("%d warnings about a plain loopback address", n)
	}
	if eval[bool](p.tab, fmt.Sprintf(`[...document.querySelectorAll("[href], [src]")].some(e => (e.href || e.src || "").includes(%s))`,
		jsString(elicitfixture.CompletePath))) {
		t.Error("the page links or loads the URL before the click")
	}
	t.Logf("screenshot: %s", p.screenshotAsks("ask-url"))
	if n := p.fx.Visits(); n != 0 {
		t.Fatalf("the page was requested %d times before the click", n)
	}

	p.click(cardSel(id) + " .ask-open")
	opened := p.waitPageAt(want)
	opened.waitText("body", "consent-1 is complete")
	if !eval[bool](opened, `window.opener === null`) {
		t.Error("the opened page has the dashboard as its opener")
	}
	if ref := eval[string](opened, `document.referrer`); ref != "" {
		t.Errorf("the opened page got the referrer %q", ref)
	}
	p.waitGone(cardSel(id))
	if o := p.waitOutcome(call); o.Action != wire.ActionAccept {
		t.Errorf("the server got %+v, want accept", o)
	}
	if n := p.fx.Visits(); n != 1 {
		t.Errorf("the page was requested %d times, want once, by the click", n)
	}
}

func TestURLFromHostileServerIsRefusedOrWarned(t *testing.T) {
	p := startAskPage(t, elicitfixture.Options{})
	refusedID := javascriptURLIsRefused(t, p)
	seen := lookalikeHostsAreWarned(t, p, refusedID)
	// A 100 KB message scrolls in its box and keeps no bidi override.
	longMessageScrollsInItsBox(t, p, seen)
}

// javascriptURLIsRefused has the server ask to open a javascript: URL,
// which the relay refuses, and dismisses the card that says so; it returns
// the card's id.
func javascriptURLIsRefused(t *testing.T, p *askPage) string {
	shown := p.watchReceived(`"url":"javascript:`)

	// The relay refuses a javascript: URL itself: a decline with the reason,
	// and a card that says why, without the URL and without Open.
	call := p.startCall("hostile_javascript")
	o := p.waitOutcome(call)
	reason, _ := o.Meta["switchboard/reason"].(string)
	if o.Action != wire.ActionDecline || !strings.Contains(reason, "URL refused") {
		t.Errorf("the server got %+v, want decline with the reason", o)
	}
	refusedID := p.waitNewCard(wire.AskURL, nil)
	card := cardSel(refusedID)
	p.waitPresent(card + " .ask-refused")
	if got := p.text(card + " .ask-refused"); !strings.Contains(got, `scheme "javascript" (only http and https open)`) {
		t.Errorf("the refused card says %q, want the reason", got)
	}
	if got := eval[string](p.tab, fmt.Sprintf(`document.querySelector(%s).dataset.state`, jsString(card))); got != string(wire.AskRefused) {
		t.Errorf("the card's state is %q, want refused", got)
	}
	if eval[bool](p.tab, fmt.Sprintf(`document.querySelector(%s) !== null`, jsString(card+" .ask-open"))) {
		t.Error("the refused card offers Open")
	}
	leak := `[...document.querySelectorAll(".ask-region, .ask-region *")].some(e =>
		[...e.attributes].some(a => a.value.toLowerCase().includes("javascript:")) ||
		[...e.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.data.toLowerCase().includes("javascript:")))`
	if eval[bool](p.tab, leak) {
		t.Error("an element or attribute of the asks holds the javascript: URL")
	}
	if n := shown.count(); n != 0 {
		t.Errorf("the javascript: URL reached the page in %d frames", n)
	}
	// A card that arrives takes the focus, so Escape reaches it and dismisses it.
	p.do("press Escape", chromedp.KeyEvent(kb.Escape))
	p.waitGone(card)
	if ids := p.cardIDs(); len(ids) != 0 {
		t.Errorf("cards left after dismissing the refused one: %v", ids)
	}
	return refusedID
}

// lookalikeHostsAreWarned has the server ask to open URLs whose hosts read as
// another (a homograph, punycode): each card warns of what the host reads as
// and is declined, and the fixture's page is never requested. It returns the
// ids of the cards.
func lookalikeHostsAreWarned(t *testing.T, p *askPage, refusedID string) []string {
	punycode := p.watchReceived(`"url":"` + elicitfixture.PunycodeURL) // shows that the watching works
	var seen []string
	for _, tool := range []string{"hostile_homograph", "hostile_punycode"} {
		call := p.startCall(tool)
		id := p.waitNewCard(wire.AskURL, append(seen, refusedID))
		seen = append(seen, id)
		warn := cardSel(id) + " .ask-warning"
		p.waitPresent(warn)
		if !eval[bool](p.tab, fmt.Sprintf(`document.querySelector(%s).checkVisibility()`, jsString(warn))) {
			t.Errorf("%s: the warning is not visible", tool)
		}
		if got := p.text(cardSel(id) + " .ask-warnings"); !strings.Contains(got, "аpple.com") {
			t.Errorf("%s: the warnings %q do not say what the host reads as", tool, got)
		}
		t.Logf("%s: host %q, warnings %q", tool, p.text(cardSel(id)+" .ask-host"), p.text(cardSel(id)+" .ask-warnings"))
		p.click(cardSel(id) + " .ask-decline")
		if o := p.waitOutcome(call); o.Action != wire.ActionDecline {
			t.Errorf("%s: the server got %+v", tool, o)
		}
	}
	if n := p.fx.Visits(); n != 0 {
		t.Errorf("the fixture's page was requested %d times", n)
	}
	if punycode.count() == 0 {
		t.Error("no frame with the punycode URL was seen: the frames are not watched")
	}
	return seen
}

// longMessageScrollsInItsBox has the server ask with a 100 KB message that
// carries a bidi override and a terminal escape: its card (a new one, past
// those seen) holds it in a scrolling box, without either, and is cancelled.
func longMessageScrollsInItsBox(t *testing.T, p *askPage, seen []string) {
	call := p.startCall("hostile_long_message")
	id := p.waitNewCard(wire.AskForm, seen)
	msg := cardSel(id) + " .ask-message"
	if !eval[bool](p.tab, fmt.Sprintf(`(() => { const m = document.querySelector(%s); return m.scrollHeight > m.clientHeight && m.clientHeight < innerHeight / 2; })()`, jsString(msg))) {
		t.Error("the long message is not held in a scrolling box")
	}
	if text := p.text(msg); strings.ContainsAny(text, "\u202e\x1b") {
		t.Error("the message shown keeps a bidi override or an escape")
	}
	if eval[bool](p.tab, fmt.Sprintf(`(() => { const c = document.querySelector(%s); return c.scrollWidth > c.clientWidth; })()`, jsString(cardSel(id)))) {
		t.Error("the card with a long message overflows sideways")
	}
	p.click(cardSel(id) + " .ask-cancel")
	if o := p.waitOutcome(call); o.Action != wire.ActionCancel {
		t.Errorf("the server got %+v, want cancel", o)
	}
}

func TestURLRequiredThenAutomaticRetry(t *testing.T) {
	p := startAskPage(t, elicitfixture.Options{})

	call := p.startCall("url_required")
	id := p.waitNewCard(wire.AskURL, nil)
	url := p.fx.CompleteURL(elicitfixture.SetupID)
	if got := p.text(cardSel(id) + " .ask-url"); got != url {
		t.Fatalf("the card shows %q, want %q", got, url)
	}
	p.click(cardSel(id) + " .ask-open")
	p.waitPageAt(url)
	p.waitGone(cardSel(id))
	if text := p.waitCallText(call, callOK); text != elicitfixture.SetupDone {
		t.Errorf("the retried call answered %q, want %q", text, elicitfixture.SetupDone)
	}

	call = p.startCall("url_required_again")
	id = p.waitNewCard(wire.AskURL, []string{id})
	p.click(cardSel(id) + " .ask-open")
	p.waitPageAt(p.fx.CompleteURL(elicitfixture.StubbornID))
	if text := p.waitCallText(call, callError); !strings.Contains(text, "asked again") {
		t.Errorf("the call failed with %q, want it to say the server asked again", text)
	}
	if ids := p.cardIDs(); len(ids) != 0 {
		t.Errorf("cards shown after the relay gave up: %v", ids)
	}
	if n := p.fx.Visits(); n != 2 {
		t.Errorf("the fixture's pages were requested %d times, want once per click", n)
	}
}

func TestTwoTabsFirstAnswerWins(t *testing.T) {
	p := startAskPage(t, elicitfixture.Options{})
	other := openTabIn(t, &browser{ctx: p.ctx}) // same browser context, same cookie
	other.navigate(p.r.URL())
	other.waitRelay(stateLive)

	call := p.startCall("form_enum")
	id := p.waitNewCard(wire.AskForm, nil)
	other.waitPresent(cardSel(id))

	p.fillForm(id, map[string]any{"color": "green"})
	p.click(cardSel(id) + " .ask-accept")
	p.waitGone(cardSel(id))
	other.waitGone(cardSel(id))
	other.waitPresent(noticeSel(id) + " .ask-gone")
	t.Logf("the other tab says: %q", other.text(noticeSel(id)))
	if o := p.waitOutcome(call); o.Action != wire.ActionAccept || o.Content["color"] != "green" {
		t.Errorf("the server got %+v", o)
	}
	if n := p.count(noticeSel(id)); n != 0 {
		t.Error("the tab that answered shows a notice that the request went")
	}
}

func TestReloadDuringPendingAsk(t *testing.T) {
	p := startAskPage(t, elicitfixture.Options{})
	// The call comes from a Go client, whose result outlives the page's reload.
	s, snap := p.r.openSocket(t, p.r.sessionCookie(t))
	server := ""
	for _, srv := range snap.Servers {
		if srv.Name == askerName {
			server = srv.ID
		}
	}
	const callID = "call-across-reload"
	f, err := wire.Op(callID, wire.OpCallTool, wire.CallToolArgs{Server: server, Name: "form_numbers"})
	if err != nil {
		t.Fatal(err)
	}
	s.send(f)

	id := p.waitNewCard(wire.AskForm, nil)
	p.setField(id, "age", 99.0)
	p.do("reload", chromedp.Reload())
	p.waitRelay(stateLive)
	p.waitPresent(cardSel(id))

	want := formNamed(t, "numbers").Example
	p.fillForm(id, want)
	p.click(cardSel(id) + " .ask-accept")
	p.waitGone(cardSel(id))

	fr := s.next("the call's result", func(f wire.Frame) bool {
		return f.ID == callID && (f.Type == wire.TypeResult || f.Type == wire.TypeError)
	})
	if fr.Type != wire.TypeResult {
		t.Fatalf("the call failed: %+v", fr.Error)
	}
	var res wire.CallToolResult
	if err := json.Unmarshal(fr.Data, &res); err != nil || len(res.Content) != 1 {
		t.Fatalf("result %s", fr.Data)
	}
	o, err := elicitfixture.ParseOutcome(res.Content[0].Text)
	if err != nil {
		t.Fatal(err)
	}
	if o.Action != wire.ActionAccept {
		t.Fatalf("the server got %+v, want accept", o)
	}
	for _, d := range contentDiff(o.Content, want) {
		t.Errorf("the server got %s", d)
	}
}

func TestAskTimeoutBecomesCancel(t *testing.T) {
	r := startRelayWith(t, func(cfg *service.Config) { cfg.AskTimeout = askTimeout })
	p := openAskPage(t, r, elicitfixture.Start(t, elicitfixture.Options{}))

	call := p.startCall("form_boolean")
	id := p.waitNewCard(wire.AskForm, nil)
	p.waitPresent(cardSel(id) + " .ask-deadline")
	t.Logf("the card says %q", p.text(cardSel(id)+" .ask-deadline"))
	p.waitGone(cardSel(id))
	p.waitPresent(noticeSel(id))
	if o := p.waitOutcome(call); o.Action != wire.ActionCancel {
		t.Errorf("the server got %+v, want cancel", o)
	}
}

func TestInputRequestsUseTheSameCards(t *testing.T) {
	p := startAskPage(t, elicitfixture.Options{Stateless: true})
	profile := formNamed(t, "strings")

	call := p.startCall("input_form")
	id := p.waitNewCard(wire.AskForm, nil)
	if got := p.text(cardSel(id) + " .ask-message"); got != profile.Message {
		t.Errorf("the card says %q, want %q", got, profile.Message)
	}
	p.fillForm(id, profile.Example)
	p.click(cardSel(id) + " .ask-accept")
	p.waitGone(cardSel(id))
	o := p.waitOutcome(call)
	if o.Action != wire.ActionAccept {
		t.Fatalf("the server got %+v, want accept", o)
	}
	for _, d := range contentDiff(o.Content, profile.Example) {
		t.Errorf("the server got %s", d)
	}

	// A form and a URL at once: two cards.
	call = p.startCall("input_pair")
	formID := p.waitNewCard(wire.AskForm, []string{id})
	urlID := p.waitNewCard(wire.AskURL, []string{id})
	if got := p.text(cardSel(urlID) + " .ask-url"); got != elicitfixture.TermsURL {
		t.Errorf("the URL card shows %q, want %q", got, elicitfixture.TermsURL)
	}
	p.fillForm(formID, map[string]any{"plan": "team"})
	p.click(cardSel(formID) + " .ask-accept")
	p.click(cardSel(urlID) + " .ask-decline")
	var got map[string]elicitfixture.Outcome
	if err := json.Unmarshal([]byte(p.waitCallText(call, callOK)), &got); err != nil {
		t.Fatal(err)
	}
	if got["plan"].Action != wire.ActionAccept || got["plan"].Content["plan"] != "team" || got["terms"].Action != wire.ActionDecline {
		t.Errorf("the server got %+v", got)
	}
}
