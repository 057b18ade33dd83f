package samplingfixture_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/samplingfixture"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

const waitFor = 10 * time.Second

// writer answers sampling requests as a person would: a tool call while
// no tool result came, then text quoting the last tool result. It records
// the requests.
type writer struct {
	asks chan *mcp.CreateMessageWithToolsParams
}

func newWriter() *writer { return &writer{asks: make(chan *mcp.CreateMessageWithToolsParams, 8)} }

func (w *writer) Sample(_ context.Context, p *mcp.CreateMessageWithToolsParams, _ conn.Origin) (*mcp.CreateMessageWithToolsResult, error) {
	w.asks <- p
	var last []mcp.Content
	if len(p.Messages) > 0 {
		last = p.Messages[len(p.Messages)-1].Content
	}
	result, _ := firstOf(last).(*mcp.ToolResultContent)
	if len(p.Tools) > 0 && result == nil {
		return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "person", StopReason: "toolUse",
			Content: []mcp.Content{&mcp.ToolUseContent{ID: "u1", Name: samplingfixture.ToolName, Input: map[string]any{"city": "Paris"}}}}, nil
	}
	text := "hello"
	if result != nil {
		text = "So: " + firstOf(result.Content).(*mcp.TextContent).Text
	}
	return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "person", StopReason: "endTurn",
		Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}

// firstOf is the first of blocks, nil for none.
func firstOf(blocks []mcp.Content) mcp.Content {
	if len(blocks) == 0 {
		return nil
	}
	return blocks[0]
}

func (w *writer) Elicit(context.Context, *mcp.ElicitParams, conn.Origin) (conn.Answer, error) {
	return conn.Answer{Result: &mcp.ElicitResult{Action: "decline"}}, nil
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
			w := newWriter()
			c := connect(t, fx, w)

			o := call(t, c, "sample_text")
			a := <-w.asks
			if o.Rounds != 1 || o.Text != "hello" || o.Model != "person" {
				t.Errorf("sample_text got %+v", o)
			}
			if a.SystemPrompt != samplingfixture.SystemPrompt || len(a.Messages[0].Content) != 2 {
				t.Errorf("sample_text asked %+v", a)
			} else if _, ok := a.Messages[0].Content[1].(*mcp.ImageContent); !ok {
				t.Errorf("sample_text asked %+v, want an image second", a.Messages[0].Content)
			}

			o = call(t, c, "sample_tools")
			if o.Rounds != 2 || len(o.ToolCalls) != 1 || o.ToolCalls[0].Input["city"] != "Paris" || o.Text != "So: "+samplingfixture.Weather("Paris") {
				t.Errorf("sample_tools got %+v", o)
			}
			<-w.asks
			second := <-w.asks
			if n := len(second.Messages); n != 3 {
				t.Errorf("the second round carries %d messages, want the history of 3", n)
			}
		})
	}
}

func TestEverythingStyleSampleWorks(t *testing.T) {
	fx := samplingfixture.Start(t, samplingfixture.Options{})
	w := newWriter()
	c := connect(t, fx, w)
	if o := call(t, c, "sample_everything"); o.Error != "" || o.Text != "hello" {
		t.Errorf("sample_everything got %+v", o)
	}
	if a := <-w.asks; a == nil || len(a.Messages) != 0 {
		t.Errorf("asked %+v, want an empty request", a)
	}
}
