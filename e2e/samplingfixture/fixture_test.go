package samplingfixture_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/samplingfixture"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

const waitFor = 10 * time.Second

// writer answers sampling asks as a person would: a tool call while no
// tool result came, then text quoting the last tool result. It records the
// asks.
type writer struct{ asks chan wire.Ask }

func (w *writer) Ask(_ context.Context, a wire.Ask) (conn.Answer, error) {
	w.asks <- a
	r := a.Sampling
	last := []wire.SamplingContent{{Type: wire.ContentText}}
	if len(r.Messages) > 0 {
		last = r.Messages[len(r.Messages)-1].Content
	}
	if len(r.Tools) > 0 && last[0].Type != wire.ContentToolResult {
		return conn.Answer{Action: wire.ActionAccept, Sampling: &wire.SamplingResult{Model: "person", StopReason: wire.StopToolUse,
			Content: []wire.SamplingContent{{Type: wire.ContentToolUse, ID: "u1", Name: samplingfixture.ToolName, Input: json.RawMessage(`{"city":"Paris"}`)}}}}, nil
	}
	text := "hello"
	if last[0].Type == wire.ContentToolResult {
		text = "So: " + last[0].Content[0].Text
	}
	return conn.Answer{Action: wire.ActionAccept, Sampling: &wire.SamplingResult{Model: "person", StopReason: wire.StopEndTurn,
		Content: []wire.SamplingContent{{Type: wire.ContentText, Text: text}}}}, nil
}

func (w *writer) Complete(string) {}

// connect connects to fx with w as the asker and waits until ready.
func connect(t *testing.T, fx *samplingfixture.Server, w *writer) *conn.Conn {
	t.Helper()
	ready := make(chan struct{}, 1)
	c := conn.Start(conn.Config{ID: "s1", Name: "sampler", URL: fx.URL(), HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0), Asker: w, Modes: conn.AllAskModes}, func(s conn.State) {
		if s.State == wire.StateReady {
			select {
			case ready <- struct{}{}:
			default:
			}
		}
	})
	t.Cleanup(func() { c.Close() })
	select {
	case <-ready:
	case <-time.After(waitFor):
		t.Fatal("the fixture never got ready")
	}
	return c
}

func call(t *testing.T, c *conn.Conn, tool string) samplingfixture.Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: tool}, nil)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	o, err := samplingfixture.ParseOutcome(res.Content[0].(*mcp.TextContent).Text)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestFixtureSamplesOnBothEras(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		name := map[bool]string{false: "createMessage", true: "input requests"}[stateless]
		t.Run(name, func(t *testing.T) {
			fx := samplingfixture.Start(t, samplingfixture.Options{Stateless: stateless})
			w := &writer{asks: make(chan wire.Ask, 8)}
			c := connect(t, fx, w)

			o := call(t, c, "sample_text")
			a := <-w.asks
			if o.Rounds != 1 || o.Text != "hello" || o.Model != "person" {
				t.Errorf("sample_text got %+v", o)
			}
			if r := a.Sampling; r.SystemPrompt != samplingfixture.SystemPrompt || len(r.Messages[0].Content) != 2 || r.Messages[0].Content[1].Type != wire.ContentImage {
				t.Errorf("sample_text asked %+v", r)
			}

			o = call(t, c, "sample_tools")
			if o.Rounds != 2 || len(o.ToolCalls) != 1 || o.ToolCalls[0].Input["city"] != "Paris" || o.Text != "So: "+samplingfixture.Weather("Paris") {
				t.Errorf("sample_tools got %+v", o)
			}
			<-w.asks
			second := <-w.asks
			if n := len(second.Sampling.Messages); n != 3 {
				t.Errorf("the second round carries %d messages, want the history of 3", n)
			}
		})
	}
}

func TestEverythingStyleSampleWorks(t *testing.T) {
	fx := samplingfixture.Start(t, samplingfixture.Options{})
	w := &writer{asks: make(chan wire.Ask, 8)}
	c := connect(t, fx, w)
	if o := call(t, c, "sample_everything"); o.Error != "" || o.Text != "hello" {
		t.Errorf("sample_everything got %+v", o)
	}
	if a := <-w.asks; a.Sampling == nil || len(a.Sampling.Messages) != 0 {
		t.Errorf("asked %+v, want an empty request", a)
	}
}
