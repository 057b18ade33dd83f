package web

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func hostileSamplingAsk(drafter string) wire.Ask {
	return wire.Ask{ID: "a1", Server: "s1", ServerName: "demo", Kind: wire.AskSampling, From: wire.AskFromSampling, State: wire.AskPending,
		Sampling: &wire.SamplingRequest{
			SystemPrompt: "system " + hostile, MaxTokens: 321, IncludeContext: "thisServer", StopSequences: []string{"STOP"},
			ModelPreferences: &wire.ModelPreferences{Hints: []string{"claude-" + hostile}, SpeedPriority: 0.5},
			Tools:            []wire.Tool{{Name: "get_weather", Description: hostile, InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","minLength":2}},"required":["city"]}`)}},
			ToolChoice:       wire.ToolChoiceRequired,
			Drafter:          drafter,
			Messages: []wire.SamplingMessage{
				{Role: wire.RoleUser, Content: []wire.SamplingContent{
					{Type: wire.ContentText, Text: "user says " + hostile},
					{Type: wire.ContentImage, MIMEType: "image/png", Data: "iVBORw0KGgo="},
					{Type: wire.ContentImage, MIMEType: "image/svg+xml", Data: "PHN2Zz4="},
					{Type: wire.ContentAudio, MIMEType: "audio/wav", Data: "UklGRg=="},
				}},
				{Role: wire.RoleAssistant, Content: []wire.SamplingContent{{Type: wire.ContentToolUse, ID: "t1", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}}},
				{Role: wire.RoleUser, Content: []wire.SamplingContent{{Type: wire.ContentToolResult, ToolUseID: "t1", IsError: true,
					Content: []wire.SamplingContent{{Type: wire.ContentText, Text: "result " + hostile}}}}},
			},
		}}
}

func TestSamplingCardShowsTheWholeRequestAsText(t *testing.T) {
	html := rendered(t, &SamplingAskCard{Ask: hostileSamplingAsk("")})
	for _, want := range []string{"asks for a model reply", "User", "Assistant", "Tool call: get_weather (id t1)", "Tool result for t1",
		"the tool reported an error", "321", "thisServer", `&#34;STOP&#34;`, "Model hints", "speed 0.5", "1 tool offered", "required",
		"Draft with model", "--model-url", "Reject", "Send reply"} {
		if !strings.Contains(html, want) {
			t.Errorf("the card lacks %q", want)
		}
	}
	if img := element(html, `src="data:image/png;base64,iVBORw0KGgo="`); !strings.HasPrefix(img, "img") {
		t.Errorf("the PNG is not shown as an image: %q", img)
	}
	if strings.Contains(html, "data:image/svg+xml") || !strings.Contains(html, "does not display") {
		t.Error("an SVG was rendered from its data")
	}
	if a := element(html, `src="data:audio/wav;base64,UklGRg=="`); !strings.HasPrefix(a, "audio") {
		t.Errorf("the WAV is not playable: %q", a)
	}
	if b := element(html, `class="sampling-draft sb-button`); !strings.Contains(b, "disabled") {
		t.Errorf("Draft with model is enabled without a model: %s", b)
	}
}

func TestSamplingCardOffersTheModelWhenConfigured(t *testing.T) {
	html := rendered(t, &SamplingAskCard{Ask: hostileSamplingAsk("gpt-test")})
	if b := element(html, `class="sampling-draft sb-button`); strings.Contains(b, "disabled") {
		t.Errorf("Draft with model is disabled with a model: %s", b)
	}
	if !strings.Contains(html, "sends this request to gpt-test") {
		t.Error("the card does not say where a draft goes")
	}
}

func TestToolArgumentsAreCheckedAgainstTheSchema(t *testing.T) {
	r := hostileSamplingAsk("").Sampling
	for _, tt := range []struct{ name, args, want string }{
		{"get_weather", `{"city":"Paris"}`, ""},
		{"get_weather", `{"city":"P"}`, "do not fit"},
		{"get_weather", `{}`, "do not fit"},
		{"get_weather", `[1]`, "not a JSON object"},
		{"rm", `{}`, "no tool"},
	} {
		if got := checkToolArgs(r, tt.name, tt.args); (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("checkToolArgs(%s, %s) = %q, want %q", tt.name, tt.args, got, tt.want)
		}
	}
}
