package web

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

const hostile = `<img src=x onerror=alert(1)>`

func servers() []wire.Server {
	return []wire.Server{
		{ID: "s1", Name: "demo", URL: "http://127.0.0.1:9001/mcp", Transport: wire.TransportStreamable, State: wire.StateReady,
			Tools:     []wire.Tool{{Name: "echo", Description: hostile}, {Name: "add"}, {Name: "slow"}},
			Prompts:   []wire.Prompt{{Name: "greet"}},
			Resources: []wire.Resource{{URI: "file:///a", Name: "a"}}},
		{ID: "s2", Name: "weather " + hostile, URL: "https://weather.example.com/mcp", Transport: wire.TransportStreamable,
			State: wire.StateFailed, Error: "connection refused " + hostile},
	}
}

// attrValues matches the attribute values of go-app's HTML encoding; in the
// browser go-app sets attributes through the DOM, never through markup.
var attrValues = regexp.MustCompile(`="[^"]*"`)

// rendered returns the HTML of ui and fails when hostile shows up as markup
// rather than text.
func rendered(t *testing.T, ui app.UI) string {
	t.Helper()
	html := app.HTMLString(ui)
	if strings.Contains(attrValues.ReplaceAllString(html, `=""`), hostile) {
		t.Fatalf("server text was rendered as HTML:\n%s", html)
	}
	return html
}

// element returns the first HTML start tag that contains every attribute in attrs.
func element(html string, attrs ...string) string {
	if tags := elements(html, attrs...); len(tags) > 0 {
		return tags[0]
	}
	return ""
}

// elements returns the HTML start tags that contain every attribute in
// attrs (go-app writes attributes in no fixed order).
func elements(html string, attrs ...string) []string {
	var out []string
	for _, tag := range strings.Split(html, "<")[1:] {
		tag = tag[:strings.IndexByte(tag, '>')+1]
		all := true
		for _, a := range attrs {
			all = all && strings.Contains(tag, a)
		}
		if all {
			out = append(out, tag)
		}
	}
	return out
}

func TestServerRowsShowStateCountsAndErrorsAsText(t *testing.T) {
	html := rendered(t, &ServerList{Servers: servers(), Loaded: true, Selected: "s1"})
	row := element(html, `data-server-id="s1"`)
	for _, want := range []string{`data-server-name="demo"`, `data-state="ready"`, "is-selected", "aria-current"} {
		if !strings.Contains(row, want) {
			t.Errorf("row s1 %s lacks %s", row, want)
		}
	}
	for _, want := range []string{
		`<span class="count-tools">3</span>`, `<span class="count-prompts">1</span>`, `<span class="count-resources">1</span>`,
		"streamable-http · 127.0.0.1:9001",
		`connection refused &lt;img src=x onerror=alert(1)&gt;`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("list lacks %s", want)
		}
	}
	if n := strings.Count(html, `class="retry-server`); n != 1 {
		t.Errorf("%d retry buttons, want 1 (for the failed server)", n)
	}
	if n := strings.Count(html, `class="remove-server`); n != 2 {
		t.Errorf("%d remove buttons, want 2", n)
	}
	if element(html, `class="server-error"`) == "" {
		t.Error("the failed server shows no .server-error")
	}
}

func TestServerRemovalAsksInPlace(t *testing.T) {
	html := rendered(t, &ServerList{Servers: servers(), Loaded: true, confirming: "s2"})
	if !strings.Contains(html, "Remove weather &lt;img") || element(html, "confirm-remove") == "" || element(html, "cancel-remove") == "" {
		t.Errorf("no confirmation for s2:\n%s", html)
	}
	if n := strings.Count(html, `class="remove-server`); n != 1 {
		t.Errorf("%d remove buttons while one row confirms, want 1", n)
	}
}

func TestServerFilterMatchesNameOrURL(t *testing.T) {
	cases := []struct {
		filter string
		want   []string
	}{
		{"", []string{"s1", "s2"}},
		{"DEMO", []string{"s1"}},
		{"weather.example", []string{"s2"}},
		{"127.0.0.1", []string{"s1"}},
		{"nothing", nil},
	}
	for _, c := range cases {
		l := &ServerList{Servers: servers(), Loaded: true, filter: c.filter}
		var got []string
		for _, s := range l.filtered() {
			got = append(got, s.ID)
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("filter %q shows %v, want %v", c.filter, got, c.want)
		}
	}
	l := &ServerList{Servers: servers(), Loaded: true, filter: "nothing"}
	if !strings.Contains(rendered(t, l), "No server matches “nothing”.") {
		t.Error("an empty filter result says nothing")
	}
}

func TestToolsShowTitleAndDescriptionAsText(t *testing.T) {
	tools := []wire.Tool{
		{Name: "echo", Title: "Echo " + hostile, Description: hostile, InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "add"},
	}
	html := rendered(t, &ToolsTab{ServerID: "s1", Tools: tools, Ready: true, selected: "echo"})
	if element(html, `class="tool-item item`, `data-tool-name="echo"`) == "" || element(html, `data-tool-name="add"`) == "" {
		t.Errorf("tool items missing:\n%s", html)
	}
	for _, want := range []string{
		`<span class="tool-title item-title">Echo &lt;img`,
		`<span class="tool-title item-title">add</span>`,
		`<span class="tool-description item-description">&lt;img`,
		`id="tool-args"`, `id="tool-call"`, `id="tool-args-error"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("tools tab lacks %s", want)
		}
	}
	if !strings.Contains(html, "&#34;type&#34;: &#34;object&#34;") && !strings.Contains(html, `&quot;type&quot;: &quot;object&quot;`) {
		t.Errorf("input schema not shown as indented text:\n%s", html)
	}
}

func TestCallsShowPendingResultAndErrorStates(t *testing.T) {
	calls := []store.Call{
		{ID: "op-3", Kind: wire.CallKindTool, Name: "slow", Status: store.CallPending, Progress: &wire.Progress{Progress: 2, Total: 5, Message: hostile}},
		{ID: "op-2", Kind: wire.CallKindTool, Name: "echo", Status: store.CallOK, Text: "hello " + hostile, JSON: `{"content":[]}`},
		{ID: "op-1", Kind: wire.CallKindTool, Name: "fail", Status: store.CallError, Error: "disk full", Code: wire.CodeToolError},
	}
	html := rendered(t, renderCalls("Tool calls", calls))
	for _, c := range []struct{ id, status string }{{"op-3", "pending"}, {"op-2", "ok"}, {"op-1", "error"}} {
		tag := element(html, `data-call-id="`+c.id+`"`)
		if !strings.Contains(tag, `data-status="`+c.status+`"`) || !strings.Contains(tag, "call-result") || !strings.Contains(tag, "data-tool-name=") {
			t.Errorf("call %s: %s", c.id, tag)
		}
	}
	for _, want := range []string{`class="spinner"`, `class="cancel-call`, "2 of 5 — &lt;img", `class="result-text code-block">hello &lt;img`,
		`class="result-json code-block">{&#34;content&#34;:[]}`, `<p class="result-error">disk full</p>`} {
		if !strings.Contains(html, want) {
			t.Errorf("calls lack %s:\n%s", want, html)
		}
	}
	if strings.Index(html, "op-3") > strings.Index(html, "op-1") {
		t.Error("calls are not newest first")
	}
}

func TestDetailShowsTabsAndInfoAsText(t *testing.T) {
	s := servers()[0]
	s.Info = &wire.Implementation{Name: "demo-server", Version: "1.0"}
	s.ProtocolVersion = "2025-06-18"
	s.Instructions = "Use echo.\n" + hostile
	html := rendered(t, &ServerDetail{Server: s, tab: tabInfo})
	for _, want := range []string{`id="server-detail"`, `data-server-id="s1"`, `id="tab-tools"`, `id="tab-prompts"`, `id="tab-resources"`, `id="tab-info"`,
		"2025-06-18", "Use echo.\n&lt;img", "demo-server"} {
		if !strings.Contains(html, want) {
			t.Errorf("detail lacks %s", want)
		}
	}
	// go-app prerenders a "true" attribute bare; the browser sets it to "true".
	if tab := element(html, `id="tab-info"`); !strings.Contains(tab, "aria-selected") || strings.Contains(tab, `aria-selected="false"`) {
		t.Errorf("info tab not selected: %s", tab)
	}
	if tab := element(html, `id="tab-tools"`); !strings.Contains(tab, `aria-selected="false"`) {
		t.Errorf("tools tab selected: %s", tab)
	}
	if panel := element(html, `id="panel-tools"`); !strings.Contains(panel, "hidden") {
		t.Errorf("closed tools panel not hidden: %s", panel)
	}
}

func TestHeaderShowsTheConnectionAndTheUser(t *testing.T) {
	v := store.View{Status: store.StatusLive, Loaded: true, Snapshot: wire.Snapshot{User: "ada"}}
	html := rendered(t, renderHeader(v))
	if tag := element(html, `id="relay-status"`); !strings.Contains(tag, `data-state="live"`) || !strings.Contains(tag, `role="status"`) {
		t.Errorf("status: %s", tag)
	}
	if !strings.Contains(html, `<span id="user">ada</span>`) || !strings.Contains(html, ">Live</span>") {
		t.Errorf("header:\n%s", html)
	}
	v.Status = store.StatusSignedOut
	if !strings.Contains(rendered(t, renderBanners(v.Status, false)), "switchboard login") {
		t.Error("signed out without saying how to sign in")
	}
}

func TestNewItemsAreMarkedForAWhile(t *testing.T) {
	var m newMarks
	t0 := time.Now()
	if m.see([]string{"a", "b"}, t0) {
		t.Error("the first items shown were marked new")
	}
	if !m.see([]string{"a", "b", "c"}, t0) || m.class("c") != "is-new" || m.class("a") != "" {
		t.Errorf("an arriving item was not marked: c=%q a=%q", m.class("c"), m.class("a"))
	}
	m.expire(t0.Add(newFor - time.Millisecond))
	if m.class("c") != "is-new" {
		t.Error("the mark went too early")
	}
	m.expire(t0.Add(newFor))
	if m.class("c") != "" {
		t.Error("the mark stayed")
	}
	if m.see([]string{"a", "b", "c"}, t0) {
		t.Error("a known item was marked again")
	}
}

func TestFirstLoadAfterAnEmptyListIsNotNews(t *testing.T) {
	var m newMarks
	m.seed(nil) // shown while the server was still connecting
	if m.see([]string{"a", "b"}, time.Now()) || m.class("a") != "" {
		t.Error("the tools of a server that just became ready were marked new")
	}
	if !m.see([]string{"a", "b", "c"}, time.Now()) || m.class("c") != "is-new" {
		t.Error("a tool arriving after the first load was not marked")
	}
}

func TestProgressText(t *testing.T) {
	cases := []struct {
		p, total float64
		msg      string
		want     string
	}{
		{3, 10, "copying", "3 of 10 — copying"},
		{0.5, 0, "", "0.5"},
		{7, 0, "step", "7 — step"},
	}
	for _, c := range cases {
		if got := progressText(c.p, c.total, c.msg); got != c.want {
			t.Errorf("progressText(%v, %v, %q) = %q, want %q", c.p, c.total, c.msg, got, c.want)
		}
	}
}

func TestCallHeadsAnnounceTheirOutcomeAndStayWithTheirCall(t *testing.T) {
	refused := wire.NewError(wire.CodeNotFound, "no such call")
	calls := []store.Call{
		{ID: "op-2", Kind: wire.CallKindTool, Name: "slow", Status: store.CallPending, CancelErr: refused},
		{ID: "op-1", Kind: wire.CallKindTool, Name: "echo", Status: store.CallOK},
	}
	html := rendered(t, renderCalls("Tool calls", calls))
	if n := len(elements(html, `class="call-head"`, `role="status"`)); n != len(calls) {
		t.Errorf("%d call heads are live regions, want %d:\n%s", n, len(calls), html)
	}
	if !strings.Contains(html, "Could not cancel: no such call") {
		t.Errorf("a refused cancel does not say why:\n%s", html)
	}
	if tag := element(html, `class="cancel-call`); strings.Contains(tag, "disabled") || !strings.Contains(html, ">Cancel</button>") {
		t.Errorf("after a refused cancel the button is %s, want Cancel, enabled", tag)
	}
	if got := (&CallItem{Call: calls[1]}).CompoID(); got != "op-1" {
		t.Errorf("a call's item is known as %q, want its call id, so that it is remounted rather than reused for another call", got)
	}
}

func TestALostAnswerIsNotCalledAFailure(t *testing.T) {
	lost := &wire.Error{Code: store.CodeConnectionLost, Message: "the connection to the relay was lost before its answer came: this may or may not have been done, so check before trying again"}
	if got := opFailure("Remove failed: ", lost); strings.Contains(got, "failed") || !strings.HasPrefix(got, "The connection") {
		t.Errorf("lost answer: %q", got)
	}
	notReady := wire.NewError(wire.CodeNotReady, "the server is not connected")
	if got := opFailure("Ping failed: ", notReady); !strings.HasPrefix(got, "Ping failed: the server is not connected. ") || !strings.Contains(got, "Retry") {
		t.Errorf("a server not connected: %q, want the failure and what to do next", got)
	}
	refused := wire.NewError(wire.CodeNotFound, "no such server")
	if got := opFailure("Remove failed: ", refused); got != "Remove failed: no such server" {
		t.Errorf("refusal: %q", got)
	}
	if got := askErrorText(lost); strings.Contains(got, "Not sent") || strings.Contains(got, "could not be sent") {
		t.Errorf("an answer whose reply was lost reads %q, as if it was not sent", got)
	}
	if got := departedText(store.Departed{Ask: wire.Ask{ID: "a"}, Err: lost}); strings.Contains(got, "not taken") {
		t.Errorf("a notice after a lost reply reads %q, as if the answer was not taken", got)
	}
}

func TestInputSchemaShowsCharactersAsTyped(t *testing.T) {
	// encoding/json writes <, > and & as \u003c, \u003e and \u0026.
	got := schemaText(json.RawMessage(`{"description":"a \u003c b \u0026 c"}`))
	if want := "{\n  \"description\": \"a < b & c\"\n}"; got != want {
		t.Errorf("schema text = %q, want %q", got, want)
	}
	if got := schemaText(nil); got != "(no schema)" {
		t.Errorf("no schema: %q", got)
	}
}

func TestBusyButtonsNameTheirProgress(t *testing.T) {
	l := &ServerList{Servers: servers(), Loaded: true, busy: map[string]string{"s1": busyRemove}}
	if tag := element(rendered(t, l), `id="remove-s1"`); !strings.Contains(tag, `aria-label="Removing demo…"`) {
		t.Errorf("a removal on its way: %s", tag)
	}
	s := servers()[0]
	s.State = wire.StateAuthenticating
	html := rendered(t, renderAuthorize(s, store.AuthFlow{Sending: true}))
	if tag := element(html, `class="authorize-server`); !strings.Contains(tag, `aria-label="Authorizing Switchboard to use demo…"`) {
		t.Errorf("an authorization on its way: %s", tag)
	}
}

func TestAskModesTickOnlyTheRelaysModes(t *testing.T) {
	html := rendered(t, &AskModes{ServerID: "s1", Modes: wire.AskModes{URL: true, Sampling: wire.SamplingOff}})
	if tag := element(html, `id="elicit-url"`); !strings.Contains(tag, "checked") {
		t.Errorf("URL requests allowed, box %s", tag)
	}
	// A false checked attribute would be prerendered as checked="false", which HTML reads as checked.
	if tag := element(html, `id="elicit-form"`); strings.Contains(tag, "checked") {
		t.Errorf("forms not allowed, box %s", tag)
	}
	if tag := element(html, `id="sampling-off"`); !strings.Contains(tag, "checked") {
		t.Errorf("sampling off, radio %s", tag)
	}
	if tag := element(html, `id="sampling-model"`); !strings.Contains(tag, "disabled") {
		t.Errorf("no model configured, yet the model radio is %s", tag)
	}
	if !strings.Contains(html, "--model-url") {
		t.Error("without a model, the tab does not say how to configure one")
	}
}

func TestAskModesOfferTheModelWhenConfigured(t *testing.T) {
	html := rendered(t, &AskModes{ServerID: "s1", Modes: wire.AskModes{Form: true, Sampling: wire.SamplingModel, Model: "gpt-test"}})
	if tag := element(html, `id="sampling-model"`); !strings.Contains(tag, "checked") || strings.Contains(tag, "disabled") {
		t.Errorf("model mode chosen and available, radio %s", tag)
	}
	if !strings.Contains(html, "gpt-test") {
		t.Error("the tab does not name the model")
	}
}

func TestSignedOutPageShowsNoServers(t *testing.T) {
	v := store.View{Status: store.StatusSignedOut}
	if html := rendered(t, renderDetail(v, "s1")); !strings.Contains(html, "Signed out") || strings.Contains(html, "Loading") {
		t.Errorf("detail when signed out:\n%s", html)
	}
	if html := rendered(t, &ServerList{SignedOut: true}); !strings.Contains(html, "Signed out.") || strings.Contains(html, "Waiting for the relay") {
		t.Errorf("list when signed out:\n%s", html)
	}
}
