package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/e2e/samplingfixture"
	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/models"
	"github.com/switchboard-mcp/switchboard/relay/service"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// samplerName is the name the tests give the sampling fixture.
const samplerName = "sampler"

// The model the relay drafts with.
const (
	modelName = "fixture-model"
	modelKey  = "sk-fixture-key-not-secret"
	// modelCity is the city the model asks the weather of.
	modelCity = "Lyon"
)

// modelText is the model's text reply to a conversation whose last
// message is a tool's result, or that offers no tools.
func modelText(last string) string { return "Model says: " + last }

// startSamplingModel starts a model server that calls get_weather (for
// modelCity) when tools are offered and no tool result came yet, and
// otherwise answers modelText of the last message's text. It refuses
// requests without modelKey.
func startSamplingModel(t *testing.T) *modelfixture.Server {
	t.Helper()
	return modelfixture.Start(t, modelfixture.Options{Key: modelKey, Decide: func(req *modelfixture.Request) modelfixture.Reply {
		last := req.Messages[len(req.Messages)-1]
		results := last.ToolResults()
		switch {
		case len(req.Tools) > 0 && len(results) == 0:
			return modelfixture.Calls(modelfixture.ToolCall{Name: samplingfixture.ToolName, Arguments: `{"city":"` + modelCity + `"}`})
		case len(results) > 0:
			return modelfixture.Text(modelText(results[0].Content))
		}
		return modelfixture.Text(modelText(last.Text()))
	}})
}

// startSamplingRelay starts a relay that drafts with model, or without a
// model when it is nil.
func startSamplingRelay(t *testing.T, model *modelfixture.Server) *relay {
	t.Helper()
	cfg := service.Config{
		DataDir:        t.TempDir(),
		AllowLoopback:  true,
		HealthInterval: healthInterval,
		RetryMin:       retryMin,
		RetryMax:       retryMax,
		Logger:         testLogger(t, "relay"),
	}
	if model != nil {
		cfg.Models = []models.Spec{{Name: modelName, Provider: llm.OpenAI, URL: model.OpenAIURL(), Model: modelName, Key: modelKey, Images: true}}
	}
	r := &relay{t: t, cfg: cfg, addr: "127.0.0.1:0"}
	r.start()
	t.Cleanup(r.stop)
	return r
}

// openSamplingPage logs a fresh tab in to r, registers fx and opens its tools.
func openSamplingPage(t *testing.T, r *relay, fx *samplingfixture.Server) *tab {
	t.Helper()
	p := openTab(t)
	p.login(r)
	p.addServer(samplerName, fx.URL())
	p.waitServer(samplerName, wire.StateReady)
	p.openServer(samplerName)
	return p
}

// waitSampled waits for call id to succeed and returns what the fixture's
// tool reports it got.
func (p *tab) waitSampled(id string) samplingfixture.Outcome {
	p.t.Helper()
	text := p.waitCallText(id, callOK)
	o, err := samplingfixture.ParseOutcome(text)
	if err != nil {
		p.t.Fatalf("call %s: %v in %q", id, err, text)
	}
	return o
}

// waitValue waits until the input or textarea sel holds text containing want.
func (p *tab) waitValue(sel, want string) {
	p.t.Helper()
	p.waitJS(fmt.Sprintf("%s holding %q", sel, want),
		fmt.Sprintf(`(document.querySelector(%s)?.value ?? "").includes(%s)`, jsString(sel), jsString(want)))
}

func TestSamplingAnsweredByHand(t *testing.T) {
	p := openSamplingPage(t, startSamplingRelay(t, nil), samplingfixture.Start(t, samplingfixture.Options{}))
	call := p.startCall("sample_text")
	card := cardSel(p.waitNewCard(wire.AskSampling, nil))
	shown := p.text(card)
	for _, want := range []string{samplingfixture.HaikuPrompt, samplingfixture.SystemPrompt, samplingfixture.ModelHint, `"` + samplingfixture.StopSequence + `"`, "Max tokens100", "none"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the card does not show %q: %s", want, shown)
		}
	}
	if n := p.count(card + ` .sampling-image img[src^="data:image/png;base64,"]`); n != 1 {
		t.Errorf("%d images shown, want the PNG", n)
	}
	if !eval[bool](p, fmt.Sprintf(`document.querySelector(%s).disabled`, jsString(card+" .sampling-draft"))) ||
		!strings.Contains(p.text(card+" .sampling-draft-note"), "--model-url") {
		t.Error("without a model, Draft with model is not disabled with a note saying how to configure one")
	}
	p.fill(card+" .sampling-reply", "Wires hum softly")
	p.fill(card+" .sampling-model", "tester")
	p.click(card + " .ask-accept")
	p.waitGone(card)
	if o := p.waitSampled(call); o.Rounds != 1 || o.Text != "Wires hum softly" || o.Model != "tester" || o.Error != "" {
		t.Errorf("the server got %+v", o)
	}
}

func TestSamplingWithToolsAnsweredByHandOverTwoRounds(t *testing.T) {
	p := openSamplingPage(t, startSamplingRelay(t, nil), samplingfixture.Start(t, samplingfixture.Options{}))
	call := p.startCall("sample_tools")
	first := p.waitNewCard(wire.AskSampling, nil)
	card := cardSel(first)
	if !strings.Contains(p.text(card), samplingfixture.Question) || !strings.Contains(p.text(card), "1 tool offered") {
		t.Fatalf("first card: %s", p.text(card))
	}
	p.click(card + " .sampling-add-call")
	args := card + " .sampling-call-args"
	p.waitPresent(args)
	p.fill(args, `{"city":"P"}`)
	p.click(card + " .ask-accept")
	p.waitText(card+" .ask-problem", "do not fit")
	p.fill(args, `{"city":"Paris"}`)
	p.click(card + " .ask-accept")

	second := cardSel(p.waitNewCard(wire.AskSampling, []string{first}))
	t.Logf("screenshot: %s", p.screenshotAsks("sampling-card"))
	history := p.text(second)
	for _, want := range []string{samplingfixture.Question, "Tool call: get_weather", "Tool result for", samplingfixture.Weather("Paris")} {
		if !strings.Contains(history, want) {
			t.Errorf("the second card does not show %q: %s", want, history)
		}
	}
	p.fill(second+" .sampling-reply", "Cloudy, 18°C.")
	p.click(second + " .ask-accept")
	o := p.waitSampled(call)
	if o.Rounds != 2 || len(o.ToolCalls) != 1 || o.ToolCalls[0].Name != samplingfixture.ToolName || o.ToolCalls[0].Input["city"] != "Paris" || o.Text != "Cloudy, 18°C." {
		t.Errorf("the server got %+v", o)
	}
}

func TestSamplingDraftedWithTheModelThenApproved(t *testing.T) {
	model := startSamplingModel(t)
	p := openSamplingPage(t, startSamplingRelay(t, model), samplingfixture.Start(t, samplingfixture.Options{}))
	call := p.startCall("sample_tools")
	first := p.waitNewCard(wire.AskSampling, nil)
	card := cardSel(first)
	if n := len(model.Requests()); n != 0 {
		t.Fatalf("the model got %d requests before anyone asked for a draft", n)
	}
	p.click(card + " .sampling-draft")
	p.waitValue(card+" .sampling-call-args", modelCity)
	p.waitValue(card+" .sampling-model", modelName)
	p.click(card + " .ask-accept")

	second := cardSel(p.waitNewCard(wire.AskSampling, []string{first}))
	p.click(second + " .sampling-draft")
	want := modelText(samplingfixture.Weather(modelCity))
	p.waitValue(second+" .sampling-reply", want)
	p.click(second + " .ask-accept")

	o := p.waitSampled(call)
	if o.Rounds != 2 || o.Text != want || o.Model != modelName || len(o.ToolCalls) != 1 || o.ToolCalls[0].Input["city"] != modelCity {
		t.Errorf("the server got %+v", o)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want one per draft", len(reqs))
	}
	if len(reqs[0].Tools) != 1 {
		t.Errorf("the first request offered tools %+v", reqs[0].Tools)
	}
	if msgs := reqs[1].Messages; len(msgs) != 3 || msgs[2].Role != "tool" || len(msgs[1].ToolCalls()) != 1 {
		t.Errorf("the second request's messages %+v: want user, assistant with the tool call, tool", msgs)
	}
}

func TestSamplingRejectedGivesTheServerAnError(t *testing.T) {
	p := openSamplingPage(t, startSamplingRelay(t, nil), samplingfixture.Start(t, samplingfixture.Options{Stateless: false}))
	call := p.startCall("sample_text")
	card := cardSel(p.waitNewCard(wire.AskSampling, nil))
	p.click(card + " .ask-decline")
	p.waitGone(card)
	if o := p.waitSampled(call); o.Code != -1 || o.Text != "" {
		t.Errorf("the server got %+v, want the user-rejected error (-1)", o)
	}
}

func TestSamplingModesInTheInfoTab(t *testing.T) {
	model := startSamplingModel(t)
	p := openSamplingPage(t, startSamplingRelay(t, model), samplingfixture.Start(t, samplingfixture.Options{}))
	p.click("#tab-info")
	p.waitPresent("#sampling-model:not(:disabled)")
	p.click("#sampling-model")
	p.waitPresent(`#sampling-modes[data-sampling="model"]`) // the relay's word, after it reconnected the server
	p.waitServer(samplerName, wire.StateReady)
	p.click("#tab-tools")
	call := p.startCall("sample_text")
	if o := p.waitSampled(call); o.Model != modelName || !strings.HasPrefix(o.Text, "Model says: ") {
		t.Errorf("in model mode the server got %+v", o)
	}
	if p.count(".ask-card") != 0 {
		t.Error("a card was shown in model mode")
	}

	p.click("#tab-info")
	p.click("#sampling-off")
	p.waitPresent(`#sampling-modes[data-sampling="off"]`)
	p.waitServer(samplerName, wire.StateReady)
	p.click("#tab-tools")
	call = p.startCall("sample_text")
	if o := p.waitSampled(call); o.Error == "" || o.Rounds != 0 {
		t.Errorf("with sampling off the server got %+v, want an error", o)
	}
}

func TestSamplingCardComesBackAfterReloadAndTimesOutAsAnError(t *testing.T) {
	r := startSamplingRelay(t, nil)
	r.stop() // the deadline is the relay's configuration: start it again with a short one
	r.cfg.AskTimeout = reloadAskTimeout
	r.start()
	p := openSamplingPage(t, r, samplingfixture.Start(t, samplingfixture.Options{}))
	// The call comes from a Go client, whose result outlives the page's reload.
	s, snap := r.openSocket(t, r.sessionCookie(t))
	server := ""
	for _, srv := range snap.Servers {
		if srv.Name == samplerName {
			server = srv.ID
		}
	}
	const callID = "sample-across-reload"
	f, err := wire.Op(callID, wire.OpCallTool, wire.CallToolArgs{Server: server, Name: "sample_text"})
	if err != nil {
		t.Fatal(err)
	}
	s.send(f)
	id := p.waitNewCard(wire.AskSampling, nil)
	p.do("reload", chromedp.Reload())
	p.waitRelay(stateLive)
	p.waitPresent(cardSel(id))
	p.waitGone(cardSel(id))

	fr := s.next("the call's result", func(f wire.Frame) bool {
		return f.ID == callID && (f.Type == wire.TypeResult || f.Type == wire.TypeError)
	})
	var res wire.CallToolResult
	if err := json.Unmarshal(fr.Data, &res); fr.Type != wire.TypeResult || err != nil || len(res.Content) != 1 {
		t.Fatalf("the call ended %s: %s %+v", fr.Type, fr.Data, fr.Error)
	}
	o, err := samplingfixture.ParseOutcome(res.Content[0].Text)
	if err != nil {
		t.Fatal(err)
	}
	if o.Code != -32001 || o.Rounds != 0 {
		t.Errorf("at the deadline the server got %+v, want a timeout error and no reply", o)
	}
}

func TestSamplingThroughInputRequests(t *testing.T) {
	p := openSamplingPage(t, startSamplingRelay(t, nil), samplingfixture.Start(t, samplingfixture.Options{Stateless: true}))
	call := p.startCall("sample_tools")
	first := p.waitNewCard(wire.AskSampling, nil)
	card := cardSel(first)
	p.click(card + " .sampling-add-call")
	p.waitPresent(card + " .sampling-call-args")
	p.fill(card+" .sampling-call-args", `{"city":"Oslo"}`)
	p.click(card + " .ask-accept")
	second := cardSel(p.waitNewCard(wire.AskSampling, []string{first}))
	p.waitText(second, samplingfixture.Weather("Oslo"))
	p.fill(second+" .sampling-reply", "Bring a coat.")
	p.click(second + " .ask-accept")
	if o := p.waitSampled(call); o.Rounds != 2 || o.Text != "Bring a coat." || o.ToolCalls[0].Input["city"] != "Oslo" {
		t.Errorf("the server got %+v", o)
	}
}
