package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// What the elicitation tests see of asks: cards in #asks, one per pending
// ask, and the results of the fixture's tools, which report what the
// server got back (elicitfixture.Outcome).

// askerName is the name the tests give the elicitation fixture on the dashboard.
const askerName = "asker"

// answerOp is how an answer to an ask shows in a frame the page sends.
const answerOp = `"op":"` + string(wire.OpAnswerAsk) + `"`

// askPage is a live dashboard of a relay where the elicitation fixture is
// registered and its tools are on screen.
type askPage struct {
	*tab
	r  *relay
	fx *elicitfixture.Server
}

// startAskPage starts a relay and a fixture, and opens the fixture's tools
// in a fresh, logged-in tab.
func startAskPage(t *testing.T, opts elicitfixture.Options) *askPage {
	t.Helper()
	return openAskPage(t, startRelay(t), elicitfixture.Start(t, opts))
}

// openAskPage logs a fresh tab in to r, registers fx and opens its tools.
func openAskPage(t *testing.T, r *relay, fx *elicitfixture.Server) *askPage {
	t.Helper()
	p := openTab(t)
	p.login(r)
	p.addServer(askerName, fx.URL())
	p.waitServer(askerName, wire.StateReady)
	p.openServer(askerName)
	return &askPage{tab: p, r: r, fx: fx}
}

// as returns the tab seen from another (sub)test, so that its failures
// end that test; the console stays watched by the tab's own test.
func (p *tab) as(t testing.TB) *tab { return &tab{t: t, ctx: p.ctx, in: p.in} }

// cardSel selects the card of ask id.
func cardSel(id string) string { return fmt.Sprintf(`.ask-card[data-ask-id=%s]`, jsString(id)) }

// noticeSel selects the notice left in the place of ask id.
func noticeSel(id string) string { return fmt.Sprintf(`.ask-notice[data-ask-id=%s]`, jsString(id)) }

// fieldSel selects the inputs of the field called name in the card of ask id.
func fieldSel(id, name string) string {
	return fmt.Sprintf(`%s .ask-field[data-field=%s]`, cardSel(id), jsString(name))
}

// fieldErrorSel selects the error line of the field called name.
func fieldErrorSel(id, name string) string {
	return fmt.Sprintf(`%s .field-error[data-field=%s]`, cardSel(id), jsString(name))
}

// cardIDs returns the ids of the cards shown.
func (p *tab) cardIDs() []string {
	p.t.Helper()
	return eval[[]string](p, `[...document.querySelectorAll(".ask-card")].map(c => c.dataset.askId)`)
}

// waitNewCard waits for a card of kind whose ask is not among before, and
// returns its ask id.
func (p *tab) waitNewCard(kind wire.AskKind, before []string) string {
	p.t.Helper()
	before = append([]string{}, before...) // JSON [] rather than null
	find := fmt.Sprintf(`[...document.querySelectorAll(%s)].map(c => c.dataset.askId).find(id => !%s.includes(id)) ?? ""`,
		jsString(fmt.Sprintf(`.ask-card[data-kind=%s]`, jsString(string(kind)))), mustJSON(before))
	return waitValue[string](p, "a new "+string(kind)+" card", find)
}

// callIDs returns the ids of the calls of the tool called name shown.
func (p *tab) callIDs(name string) []string {
	p.t.Helper()
	return eval[[]string](p, fmt.Sprintf(`[...document.querySelectorAll(%s)].map(c => c.dataset.callId)`,
		jsString(fmt.Sprintf(`.call-result[data-tool-name=%s]`, jsString(name)))))
}

// startCall calls the tool called name without arguments from its panel
// and returns the id of the call the page shows for it.
func (p *tab) startCall(name string) string {
	p.t.Helper()
	return p.startCallWith(name, `{}`)
}

// startCallWith is startCall with arguments, as JSON.
func (p *tab) startCallWith(name, args string) string {
	p.t.Helper()
	before := append([]string{}, p.callIDs(name)...) // JSON [] rather than null
	p.callTool(name, args)
	find := fmt.Sprintf(`[...document.querySelectorAll(%s)].map(c => c.dataset.callId).find(id => !%s.includes(id)) ?? ""`,
		jsString(fmt.Sprintf(`.call-result[data-tool-name=%s]`, jsString(name))), mustJSON(before))
	return waitValue[string](p, "the call of "+name+" on the page", find)
}

// callSel selects the shown call id.
func callSel(id string) string { return fmt.Sprintf(`.call-result[data-call-id=%s]`, jsString(id)) }

// callStatus returns the status the page shows for call id.
func (p *tab) callStatus(id string) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`document.querySelector(%s)?.dataset.status ?? ""`, jsString(callSel(id))))
}

// waitCallText waits until call id finished with status and returns its
// text: the result's text, or the error.
func (p *tab) waitCallText(id, status string) string {
	p.t.Helper()
	p.waitJS(fmt.Sprintf("call %s to end %s", id, status), fmt.Sprintf(
		`["ok", "error"].includes(document.querySelector(%s)?.dataset.status)`, jsString(callSel(id))))
	if got := p.callStatus(id); got != status {
		p.t.Fatalf("call %s ended %s, want %s: %s", id, got, status, p.text(callSel(id)))
	}
	part := ".result-text"
	if status == callError {
		part = ".result-error"
	}
	return p.text(callSel(id) + " " + part)
}

// waitOutcome waits for call id to succeed and returns what the fixture's
// tool reports it got.
func (p *tab) waitOutcome(id string) elicitfixture.Outcome {
	p.t.Helper()
	text := p.waitCallText(id, callOK)
	o, err := elicitfixture.ParseOutcome(text)
	if err != nil {
		p.t.Fatalf("call %s: %v in %q", id, err, text)
	}
	return o
}

// fieldElem is one input of a form field, as the page holds it.
type fieldElem struct {
	Tag     string `json:"tag"`
	Type    string `json:"type"`
	ID      string `json:"id"`
	Value   string `json:"value"`
	Checked bool   `json:"checked"`
}

// fieldElems returns the inputs of the field called name in the card of ask id.
func (p *tab) fieldElems(id, name string) []fieldElem {
	p.t.Helper()
	return eval[[]fieldElem](p, fmt.Sprintf(`[...document.querySelectorAll(%s)].map(e =>
		({tag: e.tagName.toLowerCase(), type: e.type ?? "", id: e.id, value: e.value ?? "", checked: !!e.checked}))`,
		jsString(fieldSel(id, name))))
}

// schemaDefaults returns the default of each property of a form's schema
// that has one, with the property's type.
func schemaDefaults(t testing.TB, schema json.RawMessage) map[string]typedValue {
	t.Helper()
	var s struct {
		Properties map[string]struct {
			Type    string `json:"type"`
			Default any    `json:"default"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatalf("read the schema: %v", err)
	}
	out := map[string]typedValue{}
	for name, prop := range s.Properties {
		if prop.Default != nil {
			out[name] = typedValue{kind: prop.Type, value: prop.Default}
		}
	}
	return out
}

// typedValue is a value of a schema type ("string", "number", "array"...).
type typedValue struct {
	kind  string
	value any
}

// fieldValue returns what the field called name of the card of ask id
// holds, as a value of the schema type kind: the checked options of a
// group, a checkbox's state, a number typed, a text or the chosen option.
func (p *tab) fieldValue(id, name, kind string) any {
	p.t.Helper()
	elems := p.fieldElems(id, name)
	if len(elems) == 0 {
		p.t.Fatalf("the card shows no input for field %s", name)
	}
	switch {
	case kind == "array":
		chosen := []any{}
		for _, e := range elems {
			if e.Checked {
				chosen = append(chosen, e.Value)
			}
		}
		return chosen
	case kind == "boolean":
		return elems[0].Checked
	case elems[0].Type == "radio":
		for _, e := range elems {
			if e.Checked {
				return e.Value
			}
		}
		return ""
	case elems[0].Tag == "select":
		return eval[string](p, fmt.Sprintf(`(e => e.selectedIndex > 0 ? e.value : "")(document.getElementById(%s))`, jsString(elems[0].ID)))
	case kind == "number" || kind == "integer":
		x, err := strconv.ParseFloat(elems[0].Value, 64)
		if err != nil {
			return elems[0].Value
		}
		return x
	}
	return elems[0].Value
}

// fillForm enters values in the card of ask id as a person would: typing in
// text, number and date inputs, choosing in lists, clicking radio buttons
// and checkboxes.
func (p *tab) fillForm(id string, values map[string]any) {
	p.t.Helper()
	for _, name := range slices.Sorted(maps.Keys(values)) {
		p.setField(id, name, values[name])
	}
}

// setField enters v in the field called name of the card of ask id.
func (p *tab) setField(id, name string, v any) {
	p.t.Helper()
	elems := p.fieldElems(id, name)
	if len(elems) == 0 {
		p.t.Fatalf("the card shows no input for field %s\n%s", name, p.describe())
	}
	first := elems[0]
	sel := fmt.Sprintf(`[id=%s]`, jsString(first.ID))
	switch {
	case first.Tag == "select":
		p.chooseOption(sel, name, fmt.Sprint(v))
	case first.Type == "radio":
		p.setChecks(name, elems, map[string]bool{fmt.Sprint(v): true})
	case first.Type == "checkbox" && len(elems) == 1 && isBool(v):
		if first.Checked != v.(bool) {
			p.click(labelSel(first.ID))
		}
	case first.Type == "checkbox":
		want := map[string]bool{}
		for _, o := range v.([]any) {
			want[fmt.Sprint(o)] = true
		}
		p.setChecks(name, elems, want)
	case first.Type == "date" || first.Type == "datetime-local":
		p.typeDate(sel, first.Type, v.(string))
	default:
		text := fmt.Sprint(v)
		if x, ok := v.(float64); ok {
			text = strconv.FormatFloat(x, 'f', -1, 64)
		}
		p.fill(sel, text)
		if got := eval[string](p, fmt.Sprintf(`document.querySelector(%s).value`, jsString(sel))); got != text {
			p.t.Fatalf("typed %q in field %s, the input holds %q", text, name, got)
		}
	}
}

func isBool(v any) bool { _, ok := v.(bool); return ok }

// labelSel selects the label of the input with id.
func labelSel(id string) string { return fmt.Sprintf(`label[for=%s]`, jsString(id)) }

// setChecks clicks the labels of the options of a radio or checkbox group
// whose state differs from want, by option value. A radio button is not
// unchecked by a click: choosing another one does that.
func (p *tab) setChecks(name string, elems []fieldElem, want map[string]bool) {
	p.t.Helper()
	for _, e := range elems {
		if e.Checked != want[e.Value] && (e.Type == "checkbox" || want[e.Value]) {
			p.click(labelSel(e.ID))
		}
	}
	for _, e := range elems {
		checked := eval[bool](p, fmt.Sprintf(`document.querySelector(%s).checked`, jsString(fmt.Sprintf(`[id=%s]`, jsString(e.ID)))))
		if checked != want[e.Value] {
			p.t.Fatalf("field %s option %q checked=%v after clicking, want %v", name, e.Value, checked, want[e.Value])
		}
	}
}

// chooseOption picks the option of value in a drop-down list by typing its
// label, as a person does on a focused list.
func (p *tab) chooseOption(sel, name, value string) {
	p.t.Helper()
	label := eval[string](p, fmt.Sprintf(`[...document.querySelector(%s).options].find(o => o.value === %s)?.textContent ?? ""`,
		jsString(sel), jsString(value)))
	if label == "" {
		p.t.Fatalf("the list of field %s has no option %q", name, value)
	}
	p.do("choose "+label, chromedp.SendKeys(chromedp.CSS(sel), label))
	if got := eval[string](p, fmt.Sprintf(`document.querySelector(%s).value`, jsString(sel))); got != value {
		p.t.Fatalf("typed %q on the list of field %s, it shows %q", label, name, got)
	}
}

// dateOrder is how the browser's locale orders the parts of a date and time.
type dateOrder struct {
	Parts  []string `json:"parts"` // year, month, day, hour, minute, dayPeriod
	Hour12 bool     `json:"hour12"`
}

// typeDate types a date (YYYY-MM-DD) or an RFC 3339 date-time in a date or
// datetime-local input, part by part in the order the browser shows them;
// a date-time is typed as the person's local wall clock.
func (p *tab) typeDate(sel, kind, value string) {
	p.t.Helper()
	expr := fmt.Sprintf(`(() => { const d = new Date(%s); return [d.getFullYear(), d.getMonth() + 1, d.getDate(), d.getHours(), d.getMinutes()]; })()`,
		jsString(value))
	if kind == "date" {
		expr = fmt.Sprintf(`%s.split("-").map(Number).concat([0, 0])`, jsString(value))
	}
	c := eval[[]int](p, expr)
	order := eval[dateOrder](p, `(() => {
		const f = new Intl.DateTimeFormat(navigator.language, {year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit"});
		return {parts: f.formatToParts(new Date(2000, 0, 2, 13, 4)).map(p => p.type).filter(t => t !== "literal"),
			hour12: !!f.resolvedOptions().hour12};
	})()`)
	var keys strings.Builder
	parts := slices.DeleteFunc(slices.Clone(order.Parts), func(part string) bool {
		return kind == "date" && part != "year" && part != "month" && part != "day"
	})
	for i, part := range parts {
		switch part {
		case "year":
			fmt.Fprintf(&keys, "%04d", c[0])
			if i < len(parts)-1 {
				keys.WriteString("\t") // a year may have more digits: move on by hand
			}
		case "month":
			fmt.Fprintf(&keys, "%02d", c[1])
		case "day":
			fmt.Fprintf(&keys, "%02d", c[2])
		case "hour":
			h := c[3]
			if order.Hour12 {
				h = (h+11)%12 + 1
			}
			fmt.Fprintf(&keys, "%02d", h)
		case "minute":
			fmt.Fprintf(&keys, "%02d", c[4])
		case "dayPeriod":
			keys.WriteString(map[bool]string{true: "P", false: "A"}[c[3] >= 12])
		}
	}
	want := fmt.Sprintf("%04d-%02d-%02d", c[0], c[1], c[2])
	if kind != "date" {
		want += fmt.Sprintf("T%02d:%02d", c[3], c[4])
	}
	p.do("clear "+sel, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const el = document.querySelector(%s);
		el.value = "";
		el.dispatchEvent(new Event("input", {bubbles: true}));
	})()`, jsString(sel))))
	p.do("type "+want, chromedp.SendKeys(chromedp.CSS(sel), keys.String()))
	if got := eval[string](p, fmt.Sprintf(`document.querySelector(%s).value`, jsString(sel))); got != want {
		p.t.Fatalf("typed %q (parts %v) in a %s input, it holds %q, want %q", keys.String(), order.Parts, kind, got, want)
	}
}

// contentDiff says how what the server got differs from want: the same
// fields, the same values, date-times as the same instant.
func contentDiff(got, want map[string]any) []string {
	var norm map[string]any
	if err := json.Unmarshal([]byte(mustJSON(want)), &norm); err != nil {
		panic(err) // want was marshalled just now
	}
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(norm)) {
		if g, ok := got[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s missing, want %v", k, norm[k]))
		} else if !sameValue(g, norm[k]) {
			diffs = append(diffs, fmt.Sprintf("%s = %#v, want %#v", k, g, norm[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := norm[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s = %v was not entered", k, got[k]))
		}
	}
	return diffs
}

// sameValue compares JSON values; RFC 3339 date-times compare as instants.
func sameValue(got, want any) bool {
	if g, ok := got.(string); ok {
		if w, ok := want.(string); ok {
			gt, gerr := time.Parse(time.RFC3339, g)
			wt, werr := time.Parse(time.RFC3339, w)
			if gerr == nil && werr == nil {
				return gt.Equal(wt)
			}
		}
	}
	return reflect.DeepEqual(got, want)
}

// frameCounter counts the WebSocket frames a tab sends or receives that
// contain a text.
type frameCounter struct{ n atomic.Int64 }

func (c *frameCounter) count() int { return int(c.n.Load()) }

// watchSent counts the frames the page sends that contain text.
func (p *tab) watchSent(text string) *frameCounter {
	p.t.Helper()
	return p.watchFrames(text, func(ev any) *network.WebSocketFrame {
		if e, ok := ev.(*network.EventWebSocketFrameSent); ok {
			return e.Response
		}
		return nil
	})
}

// watchReceived counts the frames the page receives that contain text.
func (p *tab) watchReceived(text string) *frameCounter {
	p.t.Helper()
	return p.watchFrames(text, func(ev any) *network.WebSocketFrame {
		if e, ok := ev.(*network.EventWebSocketFrameReceived); ok {
			return e.Response
		}
		return nil
	})
}

// watchFrames counts the frames that frame picks out of the tab's events
// and that contain text.
func (p *tab) watchFrames(text string, frame func(ev any) *network.WebSocketFrame) *frameCounter {
	p.t.Helper()
	c := &frameCounter{}
	err := chromedp.Listen(p.ctx, func(ev any) {
		if f := frame(ev); f != nil && strings.Contains(string(f.PayloadData), text) {
			c.n.Add(1)
		}
	})
	if err != nil {
		p.t.Fatalf("watch the WebSocket frames: %v", err)
	}
	return c
}

// waitUntil polls ok until it holds, failing the test after waitTimeout.
func waitUntil(t testing.TB, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: not within %v", what, waitTimeout)
		}
		time.Sleep(pollInterval) // polling a condition with a deadline, not synchronising
	}
}

// waitPageAt waits for a tab of the browser showing url and returns it,
// attached; it closes when the test ends.
func (p *tab) waitPageAt(url string) *tab {
	p.t.Helper()
	var id target.ID
	waitUntil(p.t, "a tab at "+url, func() bool {
		infos, err := chromedp.Targets(p.ctx)
		if err != nil {
			p.t.Fatalf("list the browser's tabs: %v", err)
		}
		for _, info := range infos {
			if info.Type == "page" && info.URL == url {
				id = info.TargetID
				return true
			}
		}
		return false
	})
	ctx, cancel := chromedp.NewContext(p.ctx, chromedp.WithTargetID(id))
	p.t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // attaches, with no deadline on the tab's life
		p.t.Fatalf("attach to the tab at %s: %v", url, err)
	}
	return &tab{t: p.t, ctx: ctx}
}

// uncappedStack lets the region of asks grow to its cards' height, which it
// caps on screen (it scrolls), so that a screenshot shows whole cards. The
// page's Content-Security-Policy refuses a <style> element; the CSSOM is fine.
const (
	uncappedStack = `document.getElementById("asks").style.setProperty("max-height", "none", "important")`
	cappedStack   = `document.getElementById("asks").style.removeProperty("max-height")`
)

// screenshotAsks saves a screenshot of the page scrolled to the top, with
// whole cards that finished arriving.
func (p *tab) screenshotAsks(name string) string {
	p.t.Helper()
	p.waitJS("the cards' arrival", `document.getElementById("asks").getAnimations({subtree: true}).every(a => a.playState !== "running")`)
	p.do("uncap the region of asks", chromedp.Evaluate[chromedp.Void](uncappedStack+`; window.scrollTo(0, 0)`))
	defer p.do("cap the region of asks again", chromedp.Evaluate[chromedp.Void](cappedStack))
	return p.screenshot(name)
}
