package models

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/demo"
	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// DemoLabel begins every answer of the demo model.
const DemoLabel = "(Demo model — scripted, not an AI.)"

// maxDemoQuote caps what the demo model quotes of a message or a result.
const maxDemoQuote = 500

// demoModel is the scripted demo model: no network, no AI. Offered a tool
// of the demo server and no tool result yet, it calls greet (which asks
// the person a question), else echo with the person's text; given a tool
// result, it answers with the result's text. It streams its text a few
// words at a time, pace apart.
type demoModel struct {
	pace time.Duration
}

// Stream answers req by the script.
func (d demoModel) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		var t *time.Ticker
		if d.pace > 0 {
			t = time.NewTicker(d.pace)
			defer t.Stop()
		}
		for i, ev := range demoAnswer(req) {
			if i > 0 && t != nil {
				select {
				case <-ctx.Done():
				case <-t.C:
				}
			}
			if err := ctx.Err(); err != nil {
				yield(llm.Event{}, err)
				return
			}
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// demoAnswer is the script's answer to req, as events.
func demoAnswer(req *llm.Request) []llm.Event {
	var said, results []string
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == llm.User {
		said, results = demoRead(req.Messages[n-1])
	}
	person := wire.Sanitize(strings.Join(said, " "), maxDemoQuote)
	switch tool := demoTool(req); {
	case results != nil:
		return demoText(DemoLabel+" The tool answered: "+quote(strings.Join(results, " ")), llm.StopEndTurn)
	case tool != "":
		args := map[string]string{}
		text := DemoLabel + " I call " + tool + ", which asks you a question."
		if !isTool(tool, demo.GreetTool) {
			args["text"] = person
			text = DemoLabel + " I call " + tool + " with what you said."
		}
		raw, _ := json.Marshal(args) // a map of strings always marshals
		evs := demoText(text, llm.StopToolUse)
		end := evs[len(evs)-1]
		return append(evs[:len(evs)-1],
			llm.Event{Type: llm.EventToolCall, Index: 0, ID: fmt.Sprintf("demo_%d", len(req.Messages)), Name: tool},
			llm.Event{Type: llm.EventToolArgs, Index: 0, Text: string(raw)},
			end)
	default:
		return demoText(DemoLabel+" I only call the demo server's tools (start the relay with --demo, and offer its server to this conversation). You said: "+quote(person), llm.StopEndTurn)
	}
}

// demoRead is what a user message says: its text, and the text of its
// tool results (nil when it has none).
func demoRead(m llm.Message) (said, results []string) {
	for _, p := range m.Parts {
		switch p.Type {
		case llm.PartText:
			said = append(said, p.Text)
		case llm.PartToolResult:
			r := p.ToolResult
			if results == nil {
				results = []string{}
			}
			if r.IsError {
				results = append(results, "(an error)")
			}
			for _, inner := range r.Parts {
				switch inner.Type {
				case llm.PartText:
					results = append(results, inner.Text)
				case llm.PartImage:
					results = append(results, "(an image)")
				}
			}
		}
	}
	return said, results
}

// demoTool is the demo server's tool the model calls: greet when offered,
// else echo; "" when neither is, or no tool may be called.
func demoTool(req *llm.Request) string {
	if req.ToolChoice.Mode == llm.ToolNone {
		return ""
	}
	echo := ""
	for _, t := range req.Tools {
		switch {
		case isTool(t.Name, demo.GreetTool):
			return t.Name
		case echo == "" && isTool(t.Name, demo.EchoTool):
			echo = t.Name
		}
	}
	return echo
}

// isTool says whether name, as offered, is the demo server's tool: the
// tool's own name, or the name prefixed with its server's id and "__", as
// the relay names tools for a model.
func isTool(name, tool string) bool {
	return name == tool || strings.HasSuffix(name, "__"+tool)
}

// quote is s in quotes, on one line and capped.
func quote(s string) string {
	return "“" + wire.Sanitize(s, maxDemoQuote) + "”"
}

// demoText is text in pieces of a few words, then the end.
func demoText(text string, stop llm.StopReason) []llm.Event {
	var evs []llm.Event
	words := strings.SplitAfter(text, " ")
	for i := 0; i < len(words); i += 3 {
		evs = append(evs, llm.Event{Type: llm.EventText, Text: strings.Join(words[i:min(i+3, len(words))], "")})
	}
	return append(evs, llm.Event{Type: llm.EventEnd, StopReason: stop, Model: DemoName})
}
