package web

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

func TestSamplingCardOffersTheAgentOnlyWhenTheRelayDoes(t *testing.T) {
	a := hostileSamplingAsk("")
	a.Agent, a.Tool = "Claude", "plan_trip"
	html := rendered(t, &SamplingAskCard{Ask: a})
	if element(html, `class="sampling-forward`) != "" || strings.Contains(html, "Let Claude") {
		t.Error("the card offers the agent although the relay does not")
	}
	a.Forward = true
	html = rendered(t, &SamplingAskCard{Ask: a})
	b := element(html, `class="sampling-forward sb-button`)
	if b == "" || strings.Contains(b, "disabled") {
		t.Fatalf("no enabled forward button: %q", b)
	}
	if !strings.Contains(html, ">Let Claude answer</button>") {
		t.Error("the button does not name the agent")
	}
	named := a
	named.Agent = "Claude " + hostile
	if html := rendered(t, &SamplingAskCard{Ask: named}); !strings.Contains(html, "Let Claude &lt;img src=x onerror=alert(1)&gt; answer") {
		t.Error("the agent's name is not shown as text")
	}
	for _, want := range []string{"Send reply", "Reject", "its reply goes to the server"} {
		if !strings.Contains(html, want) {
			t.Errorf("the card lacks %q", want)
		}
	}
	busy := &SamplingAskCard{Ask: a, Status: store.AskStatus{Sending: store.AskForward}}
	html = rendered(t, busy)
	if b := element(html, `class="sampling-forward sb-button`); !strings.Contains(b, "disabled") || !strings.Contains(html, "Waiting for Claude") {
		t.Errorf("while forwarding: %q", b)
	}
	failed := &SamplingAskCard{Ask: a, Status: store.AskStatus{Err: wire.NewError(wire.CodeUpstream, "the agent's client did not answer: no")}}
	if html = rendered(t, failed); !strings.Contains(html, "the agent&#39;s client did not answer: no") {
		t.Errorf("a failed forward is not shown:\n%s", html)
	}
}

func TestKeyFormAndListShowTheForwardSetting(t *testing.T) {
	html := rendered(t, &AgentKeyForm{Servers: servers()})
	box := element(html, `id="`+keyForwardBox+`"`)
	if box == "" || strings.Contains(box, "checked") {
		t.Errorf("the forward setting is missing or on by default: %q", box)
	}
	p := &AgentsPage{keys: []wire.AgentKey{{ID: "k1", Name: "a", AllServers: true}, {ID: "k2", Name: "b", AllServers: true, ForwardSampling: true}}}
	html = rendered(t, p.renderKeys(servers()))
	if n := strings.Count(html, keyForwardText); n != 1 {
		t.Errorf("the list shows the forward setting %d times, want once (key k2)", n)
	}
}
