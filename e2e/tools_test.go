package e2e

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/switchboard-mcp/switchboard/e2e/toolfixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

const toolServerName = "Toolbox"

// formSel selects the input at a place of the tool form (its id is "tf" + place).
func formSel(place string) string { return fmt.Sprintf(`[id=%s]`, jsString("tf"+place)) }

// choose sets a select to value as a person's choice would.
func (p *tab) choose(sel, value string) {
	p.t.Helper()
	p.do("choose "+value+" in "+sel, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const el = document.querySelector(%s);
		el.value = %s;
		el.dispatchEvent(new Event("change", {bubbles: true}));
	})()`, jsString(sel), jsString(value))))
}

// latestCall waits for the newest call of tool to end with status and returns its selector.
func (p *tab) latestCall(tool, status string) string {
	p.t.Helper()
	sel := fmt.Sprintf(`.call-result[data-tool-name=%s]`, jsString(tool))
	p.waitJS("a finished call of "+tool, fmt.Sprintf(`["ok", "error"].includes(document.querySelector(%s)?.dataset.status)`, jsString(sel)))
	if got := eval[string](p, fmt.Sprintf(`document.querySelector(%s).dataset.status`, jsString(sel))); got != status {
		p.t.Fatalf("the call of %s ended %s, want %s: %s", tool, got, status, p.text(sel))
	}
	return callSel(eval[string](p, fmt.Sprintf(`document.querySelector(%s).dataset.callId`, jsString(sel))))
}

// stubClipboard makes the page's clipboard writes land in window.copied,
// as headless Chromium has no clipboard to read back.
func (p *tab) stubClipboard() {
	p.t.Helper()
	eval[any](p, `(() => { window.copied = ""; navigator.clipboard.writeText = t => { window.copied = t; return Promise.resolve(); }; })()`)
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, got, want string) bool {
	t.Helper()
	var a, b any
	if err := json.Unmarshal([]byte(got), &a); err != nil {
		t.Fatalf("not JSON: %s", got)
	}
	if err := json.Unmarshal([]byte(want), &b); err != nil {
		t.Fatalf("not JSON: %s", want)
	}
	return reflect.DeepEqual(a, b)
}

// richArgs are the arguments the rich tool's form is filled with, as the
// server should get them.
const richArgs = `{"name":"ada","email":"ada@example.com","count":7,"loud":true,"color":"green","size":2,
	"tags":["x","y"],"points":[{"x":1.5}],"address":{"street":"Main"},"nick":null,"target":{"x":2},"mixed":{"a":1}}`

// TestToolCallsInTheDashboard walks through what a person does with tools,
// on one relay, fixture and tab.
func TestToolCallsInTheDashboard(t *testing.T) {
	r := startRelay(t)
	fx := toolfixture.Start(t)
	p := openTab(t)
	p.login(r)
	p.addServer(toolServerName, fx.URL())
	p.waitServer(toolServerName, wire.StateReady)
	p.openServer(toolServerName)
	p.waitTools(toolfixture.ToolRich, toolfixture.ToolContents, toolfixture.ToolShapeOK, toolfixture.ToolShapeBad,
		toolfixture.ToolBig, toolfixture.ToolWipe, toolfixture.ToolCrash, toolfixture.ToolFailLong)

	t.Run("form sends the exact arguments", func(t *testing.T) { formSendsTheExactArguments(t, p.as(t), fx) })
	t.Run("every content type shows", func(t *testing.T) { everyContentTypeShows(t, p.as(t)) })
	t.Run("the destructive tool asks first", func(t *testing.T) { destructiveToolAsksFirst(t, p.as(t), fx) })
	t.Run("a large result previews and downloads", func(t *testing.T) { largeResultPreviewsAndDownloads(t, p.as(t)) })
	t.Run("a history entry re-runs after a reload", func(t *testing.T) { historyEntryRerunsAfterReload(t, p.as(t), fx) })
	t.Run("a long error wraps in the history", func(t *testing.T) { longErrorWrapsInHistory(t, p.as(t)) })

	// These need the relay's output check (CallToolResult.OutputCheck) and
	// its safe icons (wire.Tool.Icons).
	t.Run("an output mismatch is flagged and the result shown", func(t *testing.T) { outputMismatchIsFlagged(t, p.as(t)) })

	// This needs the relay's connection-loss error (wire.CodeConnectionLost).
	t.Run("a connection lost mid-call reads as such within 2 s", func(t *testing.T) { connectionLostMidCallReadsAsSuch(t, p.as(t), fx) })
	t.Run("a call to a server not connected shows its state and Retry", func(t *testing.T) { callToServerNotConnectedOffersRetry(t, p.as(t), fx) })
}

// formSendsTheExactArguments fills every kind of field of the rich tool's
// form, is stopped by a value the schema refuses, sees the same arguments in
// the JSON view and the clipboard, and sends them: the server gets richArgs.
func formSendsTheExactArguments(t *testing.T, p *tab, fx *toolfixture.Server) {
	panel := p.openTool(toolfixture.ToolRich)
	p.waitPresent(panel + " #tool-form")
	if got := p.value(formSel("/count")); got != "3" {
		t.Errorf("count starts at %q, want its default 3", got)
	}
	p.fill(formSel("/name"), "A")
	p.fill(formSel("/email"), "ada@example.com")
	p.fill(formSel("/count"), "7")
	p.choose(formSel("/loud"), "true")
	p.choose(formSel("/color"), "1")
	p.choose(formSel("/size"), "1")
	// Each row moves the add button down: the next click waits for it, as
	// a person's eyes would (a click aimed before the render lands above).
	for i := range 2 {
		p.click(`[id="tf/tags"] > .tf-add`)
		p.waitPresent(formSel(fmt.Sprintf("/tags/#%d", i)))
	}
	p.fill(formSel("/tags/#0"), "x")
	p.fill(formSel("/tags/#1"), "y")
	p.click(`[id="tf/points"] > .tf-add`)
	p.waitPresent(formSel("/points/#0/x"))
	p.fill(formSel("/points/#0/x"), "1.5")
	p.fill(formSel("/address/street"), "Main")
	p.click(formSel("/nick-null"))
	p.choose(formSel("/target"), "1")
	p.waitPresent(formSel("/target/~1/x"))
	p.fill(formSel("/target/~1/x"), "2")
	p.fill(formSel("/mixed"), `{"a": 1`)
	p.waitText(formSel("/mixed-error"), "not valid JSON")
	p.fill(formSel("/mixed"), `{"a": 1}`)
	p.waitJS("the JSON error gone", fmt.Sprintf(`document.querySelector(%s).textContent === ""`, jsString(formSel("/mixed-error"))))
	p.screenshot("tool-form")

	p.pressSend(panel, panel+" #tool-call")
	p.waitText(formSel("/name-error"), "at least 2 characters")
	if n := len(fx.Received()); n != 0 {
		t.Fatalf("invalid arguments were sent without asking (%d calls)", n)
	}
	p.waitPresent(panel + " #tool-send-anyway")
	p.fill(formSel("/name"), "ada")

	// The JSON view holds the same values, and the form keeps them back.
	p.click(panel + " #tool-mode-json")
	p.waitPresent(panel + " #tool-args")
	p.waitJS("the arguments as JSON", `(() => { try { return JSON.parse(document.querySelector("#tool-args").value).name === "ada" } catch { return false } })()`)
	if got := p.value("#tool-args"); !sameJSON(t, got, richArgs) {
		t.Errorf("the JSON view shows %s, want %s", got, richArgs)
	}
	p.click(panel + " #tool-mode-form")
	p.waitPresent(formSel("/target/~1/x"))
	if got := p.value(formSel("/tags/#1")); got != "y" {
		t.Errorf("after JSON and back, the second tag is %q", got)
	}

	p.stubClipboard()
	p.click(panel + " #tool-copy-args")
	p.waitJS("the arguments copied", `window.copied !== ""`)
	if got := eval[string](p, `window.copied`); !sameJSON(t, got, richArgs) {
		t.Errorf("copied %s, want %s", got, richArgs)
	}

	p.pressSend(panel, panel+" #tool-call")
	call := p.latestCall(toolfixture.ToolRich, callOK)
	got := fx.Received()
	if len(got) != 1 || !sameJSON(t, string(got[0]), richArgs) {
		t.Fatalf("the server got %s, want %s", got, richArgs)
	}
	p.waitPresent(call + " .result-structured .json-tree")
	p.screenshot("tool-structured-result")
}

// everyContentTypeShows calls the tool that answers with every kind of
// content and checks how each shows, the copy of the whole result and the
// resource link.
func everyContentTypeShows(t *testing.T, p *tab) {
	p.callTool(toolfixture.ToolContents, `{}`)
	call := p.latestCall(toolfixture.ToolContents, callOK)
	p.waitJS("the image decoded", fmt.Sprintf(`document.querySelector(%s)?.naturalWidth === 32`, jsString(call+" img.result-image")))
	if !eval[bool](p, fmt.Sprintf(`document.querySelector(%s)?.controls === true`, jsString(call+" audio.result-audio"))) {
		t.Error("the sound has no controls")
	}
	text := p.text(call + ` .block-text .result-text`)
	if !strings.Contains(text, `\x1b[31malert`) || !strings.Contains(text, `nul\x00`) || !strings.Contains(text, `bell\x07`) || strings.ContainsAny(text, "\x1b\x00\a") {
		t.Errorf("control characters are not shown as escapes: %q", text)
	}
	if got := p.text(call + ` .block-resource[data-type="resource"]`); !strings.Contains(got, toolfixture.EmbedText) {
		t.Errorf("embedded resources show %q", got)
	}
	if p.count(call+` a.content-download`) != 1 || !strings.Contains(p.text(call+" a.content-download"), "8 bytes") {
		t.Error("the embedded blob is not offered as a download with its size")
	}
	p.stubClipboard()
	p.click(call + " .copy-result")
	p.waitJS("the result copied", `window.copied !== ""`)
	var whole wire.CallToolResult
	if err := json.Unmarshal([]byte(eval[string](p, `window.copied`)), &whole); err != nil || len(whole.Content) != 6 {
		t.Errorf("the copied result is not the whole result: %v", err)
	}
	p.click(call + " .read-link")
	p.waitText(call+" .result-link .content-text", toolfixture.NotesText)
	p.screenshot("tool-image-result")
}

// destructiveToolAsksFirst checks the wipe tool's hints and that it runs
// only once the person confirms.
func destructiveToolAsksFirst(t *testing.T, p *tab, fx *toolfixture.Server) {
	panel := p.openTool(toolfixture.ToolWipe)
	p.waitPresent(panel + ` .tool-hint[data-hint="destructive"]`)
	if got := p.text(panel + ` .tool-hint[data-hint="destructive"]`); got != "destructive" {
		t.Errorf("the destructive badge reads %q", got)
	}
	if got := p.text(panel + ` .tool-hint[data-hint="open-world"]`); got != "open world (not stated)" {
		t.Errorf("an absent open-world hint reads %q", got)
	}
	p.pressSend(panel, panel+" #tool-call")
	p.waitPresent(`#tool-confirm:not([hidden])`)
	p.waitJS("the focus on the confirmation", `document.activeElement?.id === "tool-confirm-run"`)
	p.press(kb.Escape)
	p.waitPresent(`#tool-confirm[hidden]`)
	if fx.Wipes() != 0 {
		t.Fatal("the destructive tool ran before the person confirmed")
	}
	p.pressSend(panel, panel+" #tool-call")
	p.pressSend(panel, "#tool-confirm-run")
	p.waitResult(toolfixture.ToolWipe, callOK, "wiped !")
	if fx.Wipes() != 1 {
		t.Errorf("the tool ran %d times", fx.Wipes())
	}
}

// largeResultPreviewsAndDownloads calls the tool with the large result: a
// preview shows, the page stays responsive, and the download is the whole
// result.
func largeResultPreviewsAndDownloads(t *testing.T, p *tab) {
	p.callTool(toolfixture.ToolBig, `{}`)
	call := p.latestCall(toolfixture.ToolBig, callOK)
	p.waitPresent(call + " .result-large")
	if n := eval[int](p, fmt.Sprintf(`document.querySelector(%s).textContent.length`, jsString(call+" .block-text .result-text"))); n > 256<<10 {
		t.Errorf("the preview holds %d characters", n)
	}
	// The page answers: a frame is drawn and typed text shows at once.
	start := time.Now()
	evalAwait[bool](p, `new Promise(r => requestAnimationFrame(() => r(true)))`)
	if d := time.Since(start); d > time.Second {
		t.Errorf("a frame took %v after the large result", d)
	}
	p.openTool(toolfixture.ToolRich)
	p.waitPresent(formSel("/name"))
	p.fill(formSel("/name"), "responsive")
	if got := p.value(formSel("/name")); got != "responsive" {
		t.Errorf("typed text shows %q", got)
	}
	var whole struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal([]byte(p.download(call+" .result-download", "result-"+toolfixture.ToolBig+".json")), &whole); err != nil || len(whole.Content) != 1 {
		t.Fatalf("the download is not the result: %v", err)
	}
	if n := len(whole.Content[0].Text); n != toolfixture.BigBytes {
		t.Errorf("the download holds %d bytes of text, want %d", n, toolfixture.BigBytes)
	}
}

// historyEntryRerunsAfterReload reloads the tab, fills the form from the
// history entry of the rich call, and re-runs it with the same arguments.
func historyEntryRerunsAfterReload(t *testing.T, p *tab, fx *toolfixture.Server) {
	p.do("reload", chromedp.Reload())
	p.waitRelay(stateLive)
	p.openServer(toolServerName)
	entry := fmt.Sprintf(`#tool-history .history-entry[data-tool-name=%s][data-outcome="ok"]`, jsString(toolfixture.ToolRich))
	p.waitPresent(entry)
	p.click(entry + " .history-edit")
	p.waitPresent(toolPanelSel(toolfixture.ToolRich) + " #tool-form")
	p.waitJS("the form filled from the history", fmt.Sprintf(`document.querySelector(%s)?.value === "ada"`, jsString(formSel("/name"))))
	p.click(entry + " .history-rerun")
	p.waitJS("the server called again", fmt.Sprintf(`document.querySelectorAll(%s).length >= 2`, jsString(`#tool-history .history-entry[data-tool-name="rich"]`)))
	p.latestCall(toolfixture.ToolRich, callOK)
	got := fx.Received()
	if len(got) != 2 || !sameJSON(t, string(got[1]), richArgs) {
		t.Errorf("the re-run sent %s", got)
	}
}

// longErrorWrapsInHistory fails a call with a long error that has no
// space: its history entry wraps within the page (no sideways scrolling in a
// 1,400 px window).
func longErrorWrapsInHistory(t *testing.T, p *tab) {
	p.viewport(1400, 900)
	p.callTool(toolfixture.ToolFailLong, `{}`)
	p.latestCall(toolfixture.ToolFailLong, callError)
	entry := fmt.Sprintf(`#tool-history .history-entry[data-tool-name=%s][data-outcome="error"]`, jsString(toolfixture.ToolFailLong))
	p.waitPresent(entry + " .history-detail")
	if detail := p.text(entry + " .history-detail"); !strings.Contains(detail, "refused: xxx") {
		t.Errorf("the history shows %q", detail)
	}
	widths := eval[[]int](p, fmt.Sprintf(`[document.documentElement.scrollWidth, document.documentElement.clientWidth, document.querySelector(%s).scrollWidth, document.querySelector(%s).clientWidth]`,
		jsString(entry), jsString(entry)))
	if widths[0] > widths[1] || widths[2] > widths[3] {
		t.Errorf("the page is %d px wide in a %d px window, the entry %d px in %d", widths[0], widths[1], widths[2], widths[3])
	}
}

// outputMismatchIsFlagged checks the tool icon, a result that matches its
// output schema and one that does not, which is flagged and still shown.
func outputMismatchIsFlagged(t *testing.T, p *tab) {
	p.openTool(toolfixture.ToolRich)
	p.waitPresent(toolPanelSel(toolfixture.ToolRich) + ` .tool-icon[src^="data:image/png;base64,"]`)
	p.callTool(toolfixture.ToolShapeOK, `{}`)
	p.waitPresent(p.latestCall(toolfixture.ToolShapeOK, callOK) + " .output-check.is-valid")
	p.callTool(toolfixture.ToolShapeBad, `{}`)
	call := p.latestCall(toolfixture.ToolShapeBad, callOK)
	p.waitPresent(call + ` .output-check.is-mismatch .output-problem[data-path="/area"]`)
	if !strings.Contains(p.text(call+" .json-tree"), `"big"`) {
		t.Error("the mismatching result is not shown")
	}
}

// connectionLostMidCallReadsAsSuch calls the tool that crashes the server:
// within 2 s the call reads as a lost connection, with Retry.
func connectionLostMidCallReadsAsSuch(t *testing.T, p *tab, fx *toolfixture.Server) {
	p.callTool(toolfixture.ToolCrash, `{}`)
	select {
	case <-fx.Crashed():
	case <-time.After(waitTimeout):
		t.Fatal("the crash tool was not called")
	}
	lost := time.Now()
	call := p.latestCall(toolfixture.ToolCrash, callError)
	if d := time.Since(lost); d > 2*time.Second {
		t.Errorf("the loss showed after %v", d)
	}
	if text := p.text(call + " .result-error"); !strings.Contains(text, "connection to the server was lost") || strings.Contains(text, "answered with") {
		t.Errorf("the call reads %q", text)
	}
	p.waitPresent(call + " .retry-call-server")
}

// callToServerNotConnectedOffersRetry calls a tool of the crashed server:
// the call shows the server's state and a Retry that reconnects it once the
// server is back.
func callToServerNotConnectedOffersRetry(t *testing.T, p *tab, fx *toolfixture.Server) {
	fx.Crash() // in case the crash above did not run
	p.waitJS("the server not ready", fmt.Sprintf(`document.querySelector(%s)?.dataset.state !== "ready"`, jsString(rowSel(toolServerName))))
	p.callTool(toolfixture.ToolRich, `{"name": "ada", "count": 1}`)
	call := p.latestCall(toolfixture.ToolRich, callError)
	if text := p.text(call + " .result-error"); strings.Count(text, "not connected") != 1 || strings.Contains(text, "answered") {
		t.Errorf("the call reads %q", text)
	}
	p.waitPresent(call + " .call-retry .state-badge")
	if err := fx.Start(); err != nil {
		t.Fatalf("restart the fixture: %v", err)
	}
	p.click(call + " .retry-call-server")
	p.waitServer(toolServerName, wire.StateReady)
}
