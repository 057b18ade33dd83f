package web

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestDefaultPolicyRunsOnlyToolsMarkedReadOnly(t *testing.T) {
	cases := []struct {
		annotations string
		want        wire.ToolPolicy
		label       string
	}{
		{`{"readOnlyHint":true}`, wire.PolicyRun, "Default: run (marked read-only)"},
		{`{"readOnlyHint":false}`, wire.PolicyAsk, "Default: ask (not marked read-only)"},
		{`{"destructiveHint":false}`, wire.PolicyAsk, "Default: ask (not marked read-only)"},
		{``, wire.PolicyAsk, "Default: ask (not marked read-only)"},
		{`not json`, wire.PolicyAsk, "Default: ask (not marked read-only)"},
	}
	for _, c := range cases {
		tool := wire.Tool{Name: "t", Annotations: json.RawMessage(c.annotations)}
		if got := defaultPolicy(tool); got != c.want {
			t.Errorf("%s: default %q, want %q", c.annotations, got, c.want)
		}
		if got := defaultPolicyLabel(tool); got != c.label {
			t.Errorf("%s: label %q, want %q", c.annotations, got, c.label)
		}
	}
}

func TestModelKeyStateSaysWhoseKeyIsUsed(t *testing.T) {
	cases := []struct {
		m    wire.ChatModel
		want string
	}{
		{wire.ChatModel{Provider: "demo", Key: true}, "not an AI"},
		{wire.ChatModel{Provider: "openai", Key: true, UserKey: true}, "instead of the operator's"},
		{wire.ChatModel{Provider: "openai", UserKey: true}, "Your own key is used."},
		{wire.ChatModel{Provider: "anthropic", Key: true}, "The operator set a key"},
		{wire.ChatModel{Provider: "openai"}, "The operator set no key"},
	}
	for _, c := range cases {
		if got := modelKeyState(c.m); !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want it to say %q", c.m, got, c.want)
		}
	}
	if got := modelLine(wire.ChatModel{Provider: "demo"}); got != "Scripted demo" {
		t.Errorf("a model without an id reads %q", got)
	}
	if keyChangedNote(true, true) != "Removed; the operator's key is used again." || keyChangedNote(true, false) != "Removed." {
		t.Error("a removed key does not say which key is used now")
	}
}

func TestSettingsOfferAKeyFormForRealModelsOnly(t *testing.T) {
	html := rendered(t, &ChatSettings{Models: []wire.ChatModel{
		{Name: "demo", Provider: "demo", Model: "script"},
		{Name: "gpt", Provider: "openai", Model: "gpt-x", Key: true},
		{Name: "claude", Provider: "anthropic", Model: "claude-y", UserKey: true},
	}})
	if n := len(elements(html, `class="chat-key-form"`)); n != 2 {
		t.Errorf("%d key forms, want 2 (none for the demo):\n%s", n, html)
	}
	demo := html[strings.Index(html, `data-model="demo"`):strings.Index(html, `data-model="gpt"`)]
	if !strings.Contains(demo, "A scripted demo, not an AI") || strings.Contains(demo, "chat-key") {
		t.Errorf("the demo row: %s", demo)
	}
	for _, key := range elements(html, `class="chat-key"`) {
		if !strings.Contains(key, `type="password"`) || !strings.Contains(key, `autocomplete="off"`) || strings.Contains(key, "value=") {
			t.Errorf("key input is not a write-only password field: %s", key)
		}
	}
	if n := len(elements(html, `class="chat-key-remove`)); n != 1 {
		t.Errorf("%d Remove buttons, want 1 (for the model with the person's key)", n)
	}
	if !strings.Contains(html, "OpenAI-compatible · gpt-x") || !strings.Contains(html, "Anthropic · claude-y") ||
		!strings.Contains(html, `<span class="chat-model-id">Scripted demo · script</span>`) {
		t.Errorf("provider and model id not shown:\n%s", html)
	}
}

func TestPoliciesShowASelectPerToolOfReadyServers(t *testing.T) {
	servers := []wire.Server{
		{ID: "s1", Name: "demo", State: wire.StateReady, Tools: []wire.Tool{
			{Name: "read", Annotations: json.RawMessage(`{"readOnlyHint":true}`)},
			{Name: "write"},
		}},
		{ID: "s2", Name: "down", State: wire.StateFailed, Tools: []wire.Tool{{Name: "gone"}}},
	}
	p := &chatPolicies{Servers: servers, policies: map[wire.ToolRef]wire.ToolPolicy{{Server: "s1", Tool: "write"}: wire.PolicyNever}}
	html := rendered(t, p)
	selects := elements(html, `class="chat-policy"`)
	if len(selects) != 2 || element(html, `data-tool="gone"`) != "" {
		t.Fatalf("selects %v, want one per tool of the ready server", selects)
	}
	if element(html, `class="chat-policy"`, `data-server="s1"`, `data-tool="write"`) == "" {
		t.Errorf("select lacks its server and tool: %v", selects)
	}
	if !strings.Contains(html, "Default: run (marked read-only)") || !strings.Contains(html, "Default: ask (not marked read-only)") {
		t.Errorf("defaults not said per tool:\n%s", html)
	}
	write := html[strings.Index(html, `data-tool="write"`):]
	if never := element(write, `value="never"`); !strings.Contains(never, "selected") {
		t.Errorf("the stored policy is not selected: %s", never)
	}
	if def := element(write, `value="default"`); strings.Contains(def, "selected") {
		t.Errorf("Default selected for a tool with a policy: %s", def)
	}

	if !strings.Contains(rendered(t, &chatPolicies{Servers: servers}), "Loading your tool policies") {
		t.Error("no word while the policies load")
	}
	html = rendered(t, &chatPolicies{Servers: servers, problem: "Could not read your tool policies: boom"})
	if element(html, `class="chat-policies-retry`) == "" {
		t.Error("no way to try again after the policies failed to load")
	}
}
