package web

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/schema"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

const everyField = `{
	"type": "object",
	"properties": {
		"name":     {"type": "string", "title": "Your name", "minLength": 2, "default": "Ada"},
		"email":    {"type": "string", "format": "email"},
		"site":     {"type": "string", "format": "uri"},
		"day":      {"type": "string", "format": "date"},
		"when":     {"type": "string", "format": "date-time", "default": "2025-01-31T14:30:00Z"},
		"count":    {"type": "integer", "minimum": 1, "maximum": 9, "default": 3},
		"ratio":    {"type": "number"},
		"ok":       {"type": "boolean", "default": true},
		"plan":     {"type": "string", "oneOf": [{"const": "free", "title": "Free"}, {"const": "pro", "title": "Pro"}], "default": "pro"},
		"region":   {"type": "string", "enum": ["a", "b", "c", "d", "e"], "enumNames": ["A1", "B1", "C1", "D1", "E1"]},
		"features": {"type": "array", "minItems": 1, "items": {"type": "string", "enum": ["x", "y"]}, "default": ["y"]}
	},
	"required": ["name", "plan"]
}`

func formAskOf(schema string) wire.Ask {
	return wire.Ask{
		ID: "a1", Server: "s1", ServerName: "demo " + hostile, Kind: wire.AskForm, From: wire.AskFromElicitation,
		State: wire.AskPending, Message: "Tell me " + hostile, Schema: json.RawMessage(schema),
		Created: time.Now(), Deadline: time.Now().Add(time.Minute),
	}
}

func urlAskOf(url string) wire.Ask {
	return wire.Ask{
		ID: "u1", Server: "s2", ServerName: "bank", Kind: wire.AskURL, From: wire.AskFromURLRequired,
		State: wire.AskPending, Message: "Sign in", URL: url, ElicitationID: "e1",
		Created: time.Now(), Deadline: time.Now().Add(time.Minute),
	}
}

func TestFormCardDrawsEveryKindOfField(t *testing.T) {
	html := rendered(t, &FormAskCard{Ask: formAskOf(everyField)})
	card := element(html, `class="ask-card"`)
	for _, want := range []string{`data-ask-id="a1"`, `data-kind="form"`, `data-state="pending"`, `data-server-id="s1"`} {
		if !strings.Contains(card, want) {
			t.Errorf("card %s lacks %s", card, want)
		}
	}
	inputs := []struct {
		field string
		attrs []string
	}{
		{"name", []string{`type="text"`, `value="Ada"`, `aria-required`}},
		{"email", []string{`type="email"`}},
		{"site", []string{`type="url"`}},
		{"day", []string{`type="date"`}},
		{"when", []string{`type="datetime-local"`}},
		{"count", []string{`type="number"`, `min="1"`, `max="9"`, `step="1"`, `value="3"`}},
		{"ratio", []string{`type="number"`, `step="any"`}},
		{"ok", []string{`type="checkbox"`, `checked`}},
	}
	for _, in := range inputs {
		tag := element(html, `class="ask-field"`, `data-field="`+in.field+`"`)
		for _, a := range in.attrs {
			if !strings.Contains(tag, a) {
				t.Errorf("field %s: %s lacks %s", in.field, tag, a)
			}
		}
		if element(html, `class="field-error"`, `data-field="`+in.field+`"`) == "" {
			t.Errorf("field %s has no .field-error", in.field)
		}
	}
	if tag := element(html, `type="radio"`, `value="pro"`); !strings.Contains(tag, "checked") || !strings.Contains(tag, `data-field="plan"`) {
		t.Errorf("the default plan is not checked: %s", tag)
	}
	if tag := element(html, `type="radio"`, `value="free"`); strings.Contains(tag, "checked") {
		t.Errorf("a plan that is not the default is checked: %s", tag)
	}
	if tag := element(html, `data-field="region"`); !strings.HasPrefix(tag, "select") || !strings.Contains(html, ">E1</option>") {
		t.Errorf("a select with five options is not a drop-down list of their labels")
	}
	if tag := element(html, `type="checkbox"`, `value="y"`); !strings.Contains(tag, "checked") || !strings.Contains(tag, `data-field="features"`) {
		t.Errorf("the default feature is not ticked: %s", tag)
	}
	if n := strings.Count(html, `class="required-mark"`); n != 2 {
		t.Errorf("%d fields marked required, want 2", n)
	}
	for _, b := range []string{"ask-accept", "ask-decline", "ask-cancel"} {
		if element(html, `class="`+b) == "" {
			t.Errorf("no %s button", b)
		}
	}
	for _, want := range []string{`<span class="ask-server">demo &lt;img`, "Tell me &lt;img", "Choose at least 1 choice"} {
		if !strings.Contains(html, want) {
			t.Errorf("card lacks %s", want)
		}
	}
}

func TestFormCardThatCannotBeParsedOffersOnlyDeclineAndCancel(t *testing.T) {
	html := rendered(t, &FormAskCard{Ask: formAskOf(`{"type":"object","properties":{"a":{"type":"object","properties":{}}}}`)})
	if !strings.Contains(element(html, `class="ask-accept`), "disabled") {
		t.Error("Submit is enabled for a form that cannot be shown")
	}
	if !strings.Contains(html, "nested objects are not allowed") {
		t.Errorf("the card does not say why the form cannot be shown:\n%s", html)
	}
}

func TestFormCardShowsTheRelaysRefusal(t *testing.T) {
	st := store.AskStatus{Err: wire.NewError(wire.CodeBadRequest, "the answer does not fit the form: name: is required")}
	html := rendered(t, &FormAskCard{Ask: formAskOf(everyField), Status: st})
	if !strings.Contains(html, "The answer was refused: the answer does not fit the form") {
		t.Errorf("the refusal is not shown:\n%s", html)
	}
	html = rendered(t, &FormAskCard{Ask: formAskOf(everyField), Status: store.AskStatus{Sending: string(wire.ActionDecline)}})
	if tag := element(html, `class="ask-decline`); !strings.Contains(tag, "disabled") || !strings.Contains(html, "Sending…") {
		t.Errorf("a decline on its way does not show: %s", tag)
	}
}

func TestURLCardShowsTheHostAndTheAddressAsTextOnly(t *testing.T) {
	html := rendered(t, &URLAskCard{Ask: urlAskOf("https://xn--pple-43d.com/login?next=%2F")})
	for _, want := range []string{
		`<p class="ask-host">xn--pple-43d.com</p>`,
		`<p class="ask-url">https://xn--pple-43d.com/login?next=%2F</p>`,
		`reads as &#34;аpple.com&#34;`,
		"Open xn--pple-43d.com",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("URL card lacks %s:\n%s", want, html)
		}
	}
	if n := strings.Count(html, `class="ask-warning"`); n < 2 {
		t.Errorf("%d warnings for a punycode look-alike, want at least 2", n)
	}
	for _, never := range []string{"href=", "<a ", "<link", "<img", "src="} {
		if strings.Contains(html, never) {
			t.Errorf("the URL card holds %q, which could fetch the URL:\n%s", never, html)
		}
	}
	if element(html, `class="ask-open`) == "" || element(html, `class="ask-refused"`) != "" {
		t.Error("an openable URL has no Open button, or is refused")
	}
}

// A look-alike host written in Unicode shows its ASCII form beside it, on
// the Site label and the Open button, as browsers do.
func TestURLCardShowsAUnicodeHostsASCIIForm(t *testing.T) {
	html := rendered(t, &URLAskCard{Ask: urlAskOf("https://аpple.com/login")})
	for _, want := range []string{
		`<p class="ask-host">аpple.com</p>`,
		`<p class="ask-host-ascii">xn--pple-43d.com</p>`,
		"Open аpple.com (xn--pple-43d.com)",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("URL card lacks %s:\n%s", want, html)
		}
	}
}

func TestURLCardRefusesWhatMayNotBeOpened(t *testing.T) {
	for _, bad := range []string{"javascript:alert(1)", "data:text/html,hi", "file:///etc/passwd", "http://bank.example.com/login"} {
		html := rendered(t, &URLAskCard{Ask: urlAskOf(bad)})
		if element(html, `class="ask-open`) != "" {
			t.Errorf("%s: an Open button", bad)
		}
		if !strings.Contains(html, `class="ask-refused"`) || !strings.Contains(html, "Switchboard will not open this address") {
			t.Errorf("%s: no reason shown:\n%s", bad, html)
		}
		if element(html, `class="ask-decline`) == "" || element(html, `class="ask-cancel`) == "" {
			t.Errorf("%s: Decline or Cancel missing", bad)
		}
	}
}

func TestRefusedURLCardShowsTheReasonAndOnlyDismiss(t *testing.T) {
	a := urlAskOf("")
	a.State = wire.AskRefused
	a.Message = "Click " + hostile
	a.Refusal = `URL refused: scheme "javascript" (only http and https open)`
	html := rendered(t, &URLAskCard{Ask: a})
	if !strings.Contains(element(html, `class="ask-card"`), `data-state="refused"`) {
		t.Error("the card is not marked refused")
	}
	refused := element(html, `class="ask-refused"`)
	if !strings.Contains(html, `scheme &#34;javascript&#34; (only http and https open)`) || refused == "" {
		t.Errorf("the reason is not shown in .ask-refused:\n%s", html)
	}
	if strings.Contains(html, "URL refused:") {
		t.Error("the reason keeps the raw prefix")
	}
	for _, want := range []string{"bank", "Click "} {
		if !strings.Contains(html, want) {
			t.Errorf("the card lacks %q:\n%s", want, html)
		}
	}
	if element(html, `class="ask-dismiss`) == "" {
		t.Error("no Dismiss button")
	}
	for _, b := range []string{"ask-open", "ask-decline", "ask-cancel", "ask-retry", "ask-done", "ask-url", "ask-host"} {
		if element(html, `class="`+b) != "" {
			t.Errorf("a refused card has %s", b)
		}
	}
}

func TestWaitingURLCardOffersOpenAgainStopAndDone(t *testing.T) {
	a := urlAskOf("https://bank.example.com/login")
	a.State = wire.AskWaiting
	html := rendered(t, &URLAskCard{Ask: a})
	if !strings.Contains(element(html, `class="ask-card"`), `data-state="waiting"`) {
		t.Error("the card is not marked waiting")
	}
	for _, b := range []string{"ask-retry", "ask-dismiss", "ask-done"} {
		if element(html, `class="`+b) == "" {
			t.Errorf("no %s button", b)
		}
	}
	if element(html, `class="ask-open`) != "" || element(html, `class="ask-cancel`) != "" {
		t.Error("a waiting card still offers Open or Cancel")
	}
	a.From = wire.AskFromElicitation
	if element(rendered(t, &URLAskCard{Ask: a}), `class="ask-done`) != "" {
		t.Error("I've finished is offered though the server reports completion itself")
	}
}

func TestDepartedNoticeSaysWhyTheCardWent(t *testing.T) {
	a := formAskOf(everyField)
	cases := []struct {
		d    store.Departed
		want string
	}{
		{store.Departed{Ask: a}, "This request is no longer waiting."},
		{store.Departed{Ask: a, Err: wire.NewError(wire.CodeNotFound, "no such ask")}, "your answer was not taken (no such ask)"},
		{store.Departed{Ask: a, Note: "Switchboard will not open this address: scheme."}, "Switchboard will not open this address"},
		{store.Departed{Ask: wire.Ask{ID: "a1", State: wire.AskRefused, Refusal: "URL refused: no host"}}, "did not show or open the address this server sent: no host."},
	}
	for _, c := range cases {
		html := rendered(t, renderDeparted(c.d))
		if !strings.Contains(html, c.want) || !strings.Contains(element(html, `class="ask-notice"`), `data-ask-id="a1"`) {
			t.Errorf("notice %+v:\n%s", c.d, html)
		}
		if strings.Contains(html, `class="ask-card"`) {
			t.Error("a notice counts as a card")
		}
	}
}

func TestServerRowsShowWaitingAsksAndAuthorize(t *testing.T) {
	ss := servers()
	ss[1].Name = "weather" // the test's element() cannot read a tag holding "<"
	ss[1].State = wire.StateAuthenticating
	ss[1].Auth = &wire.AuthState{Required: true, Error: "denied " + hostile}
	html := rendered(t, &ServerList{Servers: ss, Loaded: true, Asking: map[string]int{"s1": 2},
		Auth: map[string]store.AuthFlow{"s2": {Link: "https://auth.example.com/authorize?x=1"}}})
	if tag := element(html, `class="ask-dot"`); !strings.Contains(tag, `data-count="2"`) || !strings.Contains(tag, "2 requests from demo") {
		t.Errorf("ask dot: %s", tag)
	}
	if n := strings.Count(html, `class="ask-dot"`); n != 1 {
		t.Errorf("%d ask dots, want 1", n)
	}
	if element(html, `class="authorize-server`) == "" {
		t.Error("no Authorize button")
	}
	if !strings.Contains(html, "The last authorization failed: denied &lt;img") {
		t.Errorf("no auth error:\n%s", html)
	}
	link := element(html, `class="authorize-link"`)
	for _, want := range []string{`href="https://auth.example.com/authorize?x=1"`, `target="_blank"`, `rel="noopener noreferrer"`} {
		if !strings.Contains(link, want) {
			t.Errorf("link %s lacks %s", link, want)
		}
	}
}

func TestInfoShowsAuthStateButNoSecret(t *testing.T) {
	s := servers()[1]
	s.State = wire.StateAuthenticating
	s.Auth = &wire.AuthState{Required: true, Issuer: "https://auth.example.com", Scopes: []string{"read", "write"},
		ClientID: "client-7", ClientSecretSet: true}
	html := rendered(t, renderInfo(s))
	for _, want := range []string{"https://auth.example.com", "read write", "client-7", "<dd>set</dd>",
		`id="client-id"`, `id="client-save"`} {
		if !strings.Contains(html, want) {
			t.Errorf("info lacks %s", want)
		}
	}
	if tag := element(html, `id="client-secret"`); !strings.Contains(tag, `type="password"`) || strings.Contains(tag, "value=") {
		t.Errorf("secret input: %s", tag)
	}
	s.Auth, s.State = nil, wire.StateReady
	if html := rendered(t, renderInfo(s)); !strings.Contains(html, "does not use OAuth") || strings.Contains(html, `id="client-form"`) {
		t.Error("a server without OAuth shows the client form")
	}
}

func TestAnswerContentTurnsEntriesIntoValues(t *testing.T) {
	form := mustParse(t, everyField)
	loc := time.FixedZone("UTC+2", 2*60*60)
	values, bad := answerContent(form, map[string]fieldEntry{
		"name":     {text: "Ada"},
		"email":    {text: ""},
		"when":     {text: "2025-01-31T16:30"},
		"count":    {text: "4"},
		"ratio":    {text: " "},
		"ok":       {checked: false},
		"plan":     {text: "free"},
		"features": {},
	}, loc)
	if bad != nil {
		t.Fatalf("entries refused: %v", bad)
	}
	want := map[string]any{"name": "Ada", "when": "2025-01-31T16:30:00+02:00", "count": 4.0, "ok": false, "plan": "free"}
	if len(values) != len(want) {
		t.Errorf("values = %v, want %v", values, want)
	}
	for k, v := range want {
		if values[k] != v {
			t.Errorf("%s = %#v, want %#v", k, values[k], v)
		}
	}
	if errs := checkAnswer(form, values, nil); errs["features"] != "" || len(errs) != 0 {
		t.Errorf("errors = %v; an optional multi-select left empty must not count", errs)
	}
}

func TestAnswerContentRefusesWhatCannotBeRead(t *testing.T) {
	form := mustParse(t, everyField)
	values, bad := answerContent(form, map[string]fieldEntry{
		"count": {badInput: true},
		"ratio": {text: "1,5"},
		"when":  {text: "tomorrow"},
	}, time.UTC)
	errs := checkAnswer(form, values, bad)
	for field, want := range map[string]string{
		"count": "must be a number", "ratio": "must be a number", "when": "must be a date and time",
		"name": "is required", "plan": "is required",
	} {
		if errs[field] != want {
			t.Errorf("%s: %q, want %q", field, errs[field], want)
		}
	}
	values, _ = answerContent(form, map[string]fieldEntry{"name": {text: "A"}, "plan": {text: "pro"}, "count": {text: "2.5"}}, time.UTC)
	errs = checkAnswer(form, values, nil)
	if errs["name"] != "must be at least 2 characters" || errs["count"] != "must be a whole number" {
		t.Errorf("schema errors = %v", errs)
	}
}

func TestDateTimeDefaultsShowInTheLocalZone(t *testing.T) {
	loc := time.FixedZone("UTC-5", -5*60*60)
	cases := []struct{ in, want string }{
		{"2025-01-31T14:30:00Z", "2025-01-31T09:30"},
		{"2025-01-31T14:30:15Z", "2025-01-31T09:30:15"},
		{"not a time", ""},
	}
	for _, c := range cases {
		if got := localDateTime(c.in, loc); got != c.want {
			t.Errorf("localDateTime(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got, ok := parseLocalDateTime("2025-01-31T09:30:15", loc); !ok || got.UTC().Format(time.RFC3339) != "2025-01-31T14:30:15Z" {
		t.Errorf("parseLocalDateTime = %v, %t", got, ok)
	}
}

func TestFieldHints(t *testing.T) {
	form := mustParse(t, `{"type":"object","properties":{
		"s": {"type":"string","minLength":2,"maxLength":5},
		"e": {"type":"string","format":"email","maxLength":1},
		"i": {"type":"integer","minimum":0},
		"n": {"type":"number","maximum":1.5},
		"m": {"type":"array","minItems":2,"maxItems":2,"items":{"enum":["a","b"]}},
		"p": {"type":"string"}
	}}`)
	want := []string{"2 to 5 characters", "An email address, at most 1 character", "A whole number, at least 0",
		"At most 1.5", "Choose exactly 2 choices", ""}
	for i, fd := range form.Fields {
		if got := fieldHint(fd); got != want[i] {
			t.Errorf("hint of %s = %q, want %q", fd.Name, got, want[i])
		}
	}
}

func TestCountdown(t *testing.T) {
	created := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	deadline := created.Add(55 * time.Second)
	cases := []struct {
		now  time.Time
		want string
	}{
		{created.Add(10 * time.Second), "0:45"},
		{created.Add(10*time.Second + 300*time.Millisecond), "0:45"},
		{created.Add(-time.Hour), "0:55"}, // a browser clock behind the relay's
		{deadline.Add(time.Second), "0:00"},
	}
	for _, c := range cases {
		if got := clock(timeLeft(deadline, created, c.now)); got != c.want {
			t.Errorf("at %v: %q, want %q", c.now.Sub(created), got, c.want)
		}
	}
	if got := clock(90*time.Minute + 5*time.Second); got != "1:30:05" {
		t.Errorf("clock = %q", got)
	}
	if text, up := countdownText("Answer within", deadline, created, created.Add(10*time.Second)); text != "Answer within 0:45" || up {
		t.Errorf("10s in: %q, up %t", text, up)
	}
	if text, up := countdownText("Answer within", deadline, created, deadline); text != "Time is up" || !up {
		t.Errorf("at the deadline: %q, up %t", text, up)
	}
}

func TestSelectedServerRoundTripsThroughTheAddress(t *testing.T) {
	for _, id := range []string{"s1", "a b/#&=c", ""} {
		if got := idOfHash(hashOf(id)); got != id {
			t.Errorf("idOfHash(hashOf(%q)) = %q", id, got)
		}
	}
	for _, h := range []string{"", "#", "#server-detail", "#other=s1", "#server=%zz"} {
		if got := idOfHash(h); got != "" {
			t.Errorf("idOfHash(%q) = %q, want none", h, got)
		}
	}
}

func TestFirstServerIsSelectedWhenNoneOfTheListIs(t *testing.T) {
	ss := servers()
	cases := []struct{ selected, want string }{
		{"", "s1"}, {"s2", "s2"}, {"gone", "s1"},
	}
	for _, c := range cases {
		if got := autoSelection(ss, c.selected); got != c.want {
			t.Errorf("autoSelection(%q) = %q, want %q", c.selected, got, c.want)
		}
	}
	if got := autoSelection(nil, "gone"); got != "gone" {
		t.Errorf("with no servers the selection became %q", got)
	}
}

func TestRoughHostOfRefusedURLs(t *testing.T) {
	cases := map[string]string{
		"http://Evil.example.com:8080/x": "evil.example.com",
		"http://u:p@host.example/":       "host.example",
		"javascript:alert(1)":            "",
		"http://[::1]:80/":               "[::1]",
	}
	for in, want := range cases {
		if got := roughHost(in); got != want {
			t.Errorf("roughHost(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAnnouncementsNameTheServer(t *testing.T) {
	a := formAskOf(everyField)
	a.Message = strings.Repeat("x", 200)
	if got := announcement([]wire.Ask{a}, nil); !strings.HasPrefix(got, "New request from demo") || !strings.HasSuffix(got, "…") {
		t.Errorf("one ask: %q", got)
	}
	if got := announcement([]wire.Ask{a, a}, nil); got != "2 new requests, the first from demo "+hostile+"." {
		t.Errorf("two asks: %q", got)
	}
	if got := announcement(nil, []store.Departed{{Ask: a}}); got != "This request is no longer waiting." {
		t.Errorf("departed: %q", got)
	}
}

func mustParse(t *testing.T, s string) *schema.Form {
	t.Helper()
	form, err := schema.Parse(json.RawMessage(s))
	if err != nil {
		t.Fatal(err)
	}
	return form
}

func TestNoticeOfAWaitingURLAskDoesNotReadLikeAFailure(t *testing.T) {
	waiting := store.Departed{Ask: wire.Ask{ID: "a", Kind: wire.AskURL, State: wire.AskWaiting}}
	pending := store.Departed{Ask: wire.Ask{ID: "b", Kind: wire.AskURL, State: wire.AskPending}}
	if got := departedText(waiting); got == departedText(pending) || !strings.Contains(got, "page you opened") {
		t.Errorf("waiting ask left with %q, the same as a pending one", got)
	}
}

func TestChoiceGroupsCarryTheirStatesWhereARIAAllowsThem(t *testing.T) {
	c := &FormAskCard{Ask: formAskOf(everyField), errs: schema.FieldErrors{"plan": "Choose one", "features": "Choose at least 1 choice"}}
	html := rendered(t, c)
	radios := element(html, `class="ask-row ask-choices`, `data-field="plan"`)
	for _, want := range []string{`role="radiogroup"`, "aria-required", "aria-invalid", "is-invalid"} {
		if !strings.Contains(radios, want) {
			t.Errorf("radio group %s lacks %s", radios, want)
		}
	}
	boxes := element(html, `class="ask-row ask-choices`, `data-field="features"`)
	if strings.Contains(boxes, "aria-invalid") || strings.Contains(boxes, "aria-required") || strings.Contains(boxes, "role=") {
		t.Errorf("checkbox group %s carries states a group may not have", boxes)
	}
	if !strings.Contains(boxes, "is-invalid") {
		t.Errorf("checkbox group %s is not drawn invalid", boxes)
	}
	for _, v := range []string{"x", "y"} {
		if tag := element(html, `type="checkbox"`, `value="`+v+`"`); !strings.Contains(tag, "aria-invalid") {
			t.Errorf("checkbox %s of an invalid field: %s", v, tag)
		}
	}
}

func TestEscapeClosesTheTopCardWaitingOrPending(t *testing.T) {
	cases := []struct {
		slots []string
		live  map[string]bool
		want  string
	}{
		{[]string{"gone", "waiting", "pending"}, map[string]bool{"waiting": true, "pending": true}, "waiting"},
		{[]string{"pending"}, map[string]bool{"pending": true}, "pending"},
		{[]string{"gone"}, map[string]bool{}, ""}, // only a notice: Escape is left alone
		{nil, nil, ""},
	}
	for _, c := range cases {
		if got := topCard(c.slots, c.live); got != c.want {
			t.Errorf("topCard(%v, %v) = %q, want %q", c.slots, c.live, got, c.want)
		}
	}
}
