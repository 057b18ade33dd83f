package e2e

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/switchboard-mcp/switchboard/e2e/resourcefixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

const resourceFixtureName = "resources"

// openResourceFixture logs a fresh tab in to r, adds fx and opens it on tab
// ("prompts" or "resources").
func openResourceFixture(t *testing.T, r *relay, fx *resourcefixture.Server, tab string) *tab {
	t.Helper()
	p := openTab(t)
	p.login(r)
	p.addServer(resourceFixtureName, fx.URL())
	p.waitServer(resourceFixtureName, wire.StateReady)
	p.openServer(resourceFixtureName)
	p.click("#tab-" + tab)
	return p
}

// press sends one key to what has the focus.
func (p *tab) press(key string) {
	p.t.Helper()
	p.do("press "+key, chromedp.KeyEvent(key))
}

// value is the value of the input sel.
func (p *tab) value(sel string) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`document.querySelector(%s)?.value ?? ""`, jsString(sel)))
}

// waitSuggestions waits until the input with id shows exactly want as its
// suggestions, in order, in a visible list.
func (p *tab) waitSuggestions(id string, want ...string) {
	p.t.Helper()
	list := "#" + id + "-suggestions"
	p.waitJS(fmt.Sprintf("suggestions %q for #%s", want, id), fmt.Sprintf(
		`(() => { const l = document.querySelector(%s);
			return l && !l.hidden && JSON.stringify([...l.querySelectorAll(".completion-option")].map(e => e.textContent)) === %s; })()`,
		jsString(list), jsString(mustJSON(want))))
}

// waitSuggestionsClosed waits until the input with id shows no suggestions.
func (p *tab) waitSuggestionsClosed(id string) {
	p.t.Helper()
	p.waitJS("no suggestions for #"+id, fmt.Sprintf(`(() => { const l = document.querySelector(%s); return !l || l.hidden; })()`,
		jsString("#"+id+"-suggestions")))
}

// waitReadText waits for a resource read whose text content contains want.
func (p *tab) waitReadText(want string) {
	p.t.Helper()
	p.waitJS(fmt.Sprintf("a read showing %q", want), fmt.Sprintf(
		`[...document.querySelectorAll("#panel-resources .call-result .content-text")].some(e => e.textContent.includes(%s))`, jsString(want)))
}

// readResource clicks the Read button of the listed resource uri.
func (p *tab) readResource(uri string) {
	p.t.Helper()
	p.click(fmt.Sprintf(`.resource-item[data-resource-uri=%s] .resource-read`, jsString(uri)))
}

func TestCompletionsSuggestWhileTypingAndPickByKeyboard(t *testing.T) {
	r := startRelay(t)
	fx := resourcefixture.Start(t)
	p := openResourceFixture(t, r, fx, "prompts")
	p.click(fmt.Sprintf(`.prompt-item[data-prompt-name=%s] .prompt-open`, jsString(resourcefixture.PromptCode)))
	p.waitPresent("#prompt-arg-0[role=combobox]")

	// Arrow down on an empty field asks at once: the server has more than it sends.
	p.click("#prompt-arg-0")
	p.press(kb.ArrowDown)
	p.waitSuggestions("prompt-arg-0", "go", "haskell", "java")
	p.waitText("#prompt-panel .completion-status", "3 of 8 suggestions")
	p.press(kb.Escape)
	p.waitSuggestionsClosed("prompt-arg-0")

	// Typing asks once the typing pauses, not once per key. The five
	// letters come as one burst of input events, as a quick typist's do:
	// keys sent one by one, each awaited, could be more than the pause apart
	// on a loaded machine.
	sent := p.watchSent(`"op":"` + string(wire.OpComplete) + `"`)
	p.typeInOneBurst("#prompt-arg-0", "javas")
	p.waitSuggestions("prompt-arg-0", "javascript")
	if n := sent.count(); n >= len("javas") {
		t.Errorf("typing five letters sent %d completion requests; they should wait for a pause", n)
	}
	// A request still running when the text changes is cancelled, up to the
	// server, and only the answer to the latest text shows.
	cancels := p.watchSent(`"op":"` + string(wire.OpCancel) + `"`)
	p.fill("#prompt-arg-0", resourcefixture.SlowValue)
	if err := fx.WaitSlowCompletions(1, 0, waitTimeout); err != nil {
		t.Fatal(err)
	}
	p.do("type a", chromedp.SendKeys(chromedp.CSS("#prompt-arg-0"), "a"))
	p.waitSuggestions("prompt-arg-0", "haskell")
	if err := fx.WaitSlowCompletions(1, 1, waitTimeout); err != nil {
		t.Fatal(err)
	}
	if cancels.count() == 0 {
		t.Error("the stale completion was not cancelled with op.cancel")
	}

	p.fill("#prompt-arg-0", "py")
	p.waitSuggestions("prompt-arg-0", "python")
	p.press(kb.ArrowDown)
	p.waitAttr("#prompt-arg-0", "aria-activedescendant", "prompt-arg-0-option-0")
	p.press(kb.Enter)
	p.waitSuggestionsClosed("prompt-arg-0")
	if v := p.value("#prompt-arg-0"); v != "python" {
		t.Fatalf("picked %q, want python", v)
	}
	if n := p.count(".call-result"); n != 0 {
		t.Fatalf("Enter on a suggestion submitted the form (%d results)", n)
	}

	// The framework's suggestions depend on the language already filled in,
	// which goes as context.
	p.fill("#prompt-arg-1", "f")
	p.waitSuggestions("prompt-arg-1", "fastapi", "flask")
	p.press(kb.ArrowDown)
	p.press(kb.ArrowDown)
	p.waitAttr("#prompt-arg-1", "aria-activedescendant", "prompt-arg-1-option-1")
	p.press(kb.ArrowUp)
	p.waitAttr("#prompt-arg-1", "aria-activedescendant", "prompt-arg-1-option-0")
	p.press(kb.Enter)
	p.waitSuggestionsClosed("prompt-arg-1") // a list still open would lie over the Get button
	if v := p.value("#prompt-arg-1"); v != "fastapi" {
		t.Fatalf("picked %q, want fastapi", v)
	}
	p.click("#prompt-get")
	p.waitJS("the prompt's result", `[...document.querySelectorAll("#panel-prompts .call-result .result-text")].some(e => e.textContent.includes("Review this python code using fastapi."))`)
	p.checkConsole()
}

func TestTemplateReadAndContentsByType(t *testing.T) {
	r := startRelay(t)
	fx := resourcefixture.Start(t)
	p := openResourceFixture(t, r, fx, "resources")
	form := fmt.Sprintf(`.template-form[data-uri-template=%s]`, jsString(resourcefixture.NotesTemplate))
	p.waitPresent(form + " #template-0-var-0")

	p.fill("#template-0-var-0", "gr")
	p.waitSuggestions("template-0-var-0", "grace")
	p.press(kb.ArrowDown)
	p.waitAttr("#template-0-var-0", "aria-activedescendant", "template-0-var-0-option-0")
	p.press(kb.Enter)
	p.waitSuggestionsClosed("template-0-var-0")
	p.click("#template-0-var-1")
	p.press(kb.ArrowDown)
	p.waitSuggestions("template-0-var-1", resourcefixture.Notes("grace")...)
	p.press(kb.ArrowDown)
	p.waitAttr("#template-0-var-1", "aria-activedescendant", "template-0-var-1-option-0")
	p.press(kb.Enter)
	p.waitSuggestionsClosed("template-0-var-1")
	p.click(form + " .template-read")
	p.waitReadText(resourcefixture.NoteText("grace", "grace-todo"))
	// A resource read through a template can be subscribed to, and shows
	// among the other subscriptions, from where it can be ended.
	p.click(form + " .template-subscribe")
	other := fmt.Sprintf(`.subscription-item[data-resource-uri=%s]`, jsString("fixture://users/grace/notes/grace-todo"))
	p.waitPresent(other + ` .resource-subscribe`)
	p.click(other + " .resource-subscribe")
	p.waitGone(other)

	p.readResource(resourcefixture.ImageURI)
	p.waitJS("the image decoded", `[...document.querySelectorAll("#panel-resources img.content-image")].some(i => i.complete && i.naturalWidth === 4 && i.src.startsWith("data:image/png;base64,"))`)

	p.readResource(resourcefixture.SoundURI)
	p.waitJS("the sound's metadata loaded", `[...document.querySelectorAll("#panel-resources audio.content-audio")].some(a => a.readyState >= 1 && a.duration > 0.05 && a.duration < 0.2)`)

	p.readResource(resourcefixture.BinaryURI)
	link := `#panel-resources a.content-download`
	p.waitPresent(link)
	if got := eval[string](p, `document.querySelector("#panel-resources a.content-download").getAttribute("download")`); got != "archive.bin" {
		t.Errorf("download name %q", got)
	}
	if got := p.text(link); got != "Download archive.bin (1.5 KB)" {
		t.Errorf("download link says %q", got)
	}
	if !eval[bool](p, `document.querySelector("#panel-resources a.content-download").href.startsWith("data:application/octet-stream;base64,")`) {
		t.Error("the download is not an octet-stream data: URL")
	}

	p.readResource(resourcefixture.JSONURI)
	p.waitJS("the JSON tree", `[...document.querySelectorAll("#panel-resources .json-tree .json-key")].some(e => e.textContent === "nested: ")`)
	p.screenshot("resource-reads")

	// A prompt's embedded resources show by their own types.
	p.click("#tab-prompts")
	p.click(fmt.Sprintf(`.prompt-item[data-prompt-name=%s] .prompt-open`, jsString(resourcefixture.PromptEmbedded)))
	p.click("#prompt-get")
	p.waitJS("the embedded image and JSON", `(() => { const c = document.querySelector("#panel-prompts .call-result[data-status=ok]");
		return c && c.querySelector("img.content-image") && c.querySelector(".json-tree") && !c.textContent.includes("unknown type"); })()`)
	p.checkConsole()
}

func TestSubscriptionShowsUpdatesAndSurvivesARelayRestart(t *testing.T) {
	r := startRelay(t)
	fx := resourcefixture.Start(t)
	p := openResourceFixture(t, r, fx, "resources")
	button := fmt.Sprintf(`.resource-item[data-resource-uri=%s] .resource-subscribe`, jsString(resourcefixture.ClockURI))
	updated := fmt.Sprintf(`.resource-item[data-resource-uri=%s] .resource-updated`, jsString(resourcefixture.ClockURI))
	p.waitPresent(button)
	p.click(button)
	p.waitAttr(button, "data-subscribed", "true")
	if err := fx.WaitSubscriptions(1, waitTimeout); err != nil {
		t.Fatal(err)
	}
	p.readResource(resourcefixture.ClockURI)
	p.waitReadText("tick 0")
	if n := p.count(updated); n != 0 {
		t.Fatal("marked updated before any update")
	}

	fx.SetClock("tick 1")
	p.waitText(updated, "Updated ")
	p.waitReadText("tick 1")

	r.stop()
	p.waitRelay(stateReconnecting)
	r.start()
	// The relay subscribes again by itself, from what it stored.
	if err := fx.WaitSubscriptions(2, waitTimeout); err != nil {
		t.Fatal(err)
	}
	p.waitRelay(stateLive)
	p.waitAttr(button, "data-subscribed", "true")
	p.waitServer(resourceFixtureName, wire.StateReady)
	fx.SetClock("tick 2")
	p.waitReadText("tick 2")

	p.click(button)
	p.waitAttr(button, "data-subscribed", "false")
	r.stop()
	r.start()
	p.waitRelay(stateLive)
	p.waitServer(resourceFixtureName, wire.StateReady)
	p.waitAttr(button, "data-subscribed", "false")
	if n := fx.Subscriptions(); n != 2 {
		t.Errorf("%d subscriptions after unsubscribing and a restart, want still 2", n)
	}
	p.checkConsole()
}

// typeInOneBurst empties the field sel and types text into it a letter at
// a time, each letter an input event, all in one task of the page.
func (p *tab) typeInOneBurst(sel, text string) {
	p.t.Helper()
	p.do("type into "+sel, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const el = document.querySelector(%s), text = %s;
		el.focus();
		for (let i = 0; i <= text.length; i++) {
			el.value = text.slice(0, i);
			el.dispatchEvent(new InputEvent("input", {bubbles: true, inputType: "insertText", data: i ? text[i-1] : null}));
		}
	})()`, jsString(sel), jsString(text))))
}
