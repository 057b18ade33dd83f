package modelfixture_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
)

// oaChunk is what these tests read of an OpenAI chunk.
type oaChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role             string  `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent string  `json:"reasoning_content"`
			ToolCalls        []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string  `json:"name"`
					Arguments *string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}

// oaStream is an OpenAI stream put back together.
type oaStream struct {
	reasoning, text string
	calls           []modelfixture.ToolCall
	finish          string
	usage           [3]int // prompt, completion, total; from the usage chunk
	usageChunks     int
	deltas          int  // chunks with content, reasoning or arguments
	widest          int  // runes of the widest delta
	done            bool // data: [DONE] came last
	errType         string
}

// assembleOpenAI checks each chunk's frame and puts the stream together.
func assembleOpenAI(t *testing.T, events []sse) oaStream {
	t.Helper()
	var s oaStream
	var id string
	for i, e := range events {
		if e.Event != "" {
			t.Errorf("event %d is named %q; OpenAI streams data lines only", i, e.Event)
		}
		if e.Data == "[DONE]" {
			s.done = i == len(events)-1
			continue
		}
		c := decode[oaChunk](t, e.Data)
		if c.Error != nil {
			s.errType = c.Error.Type
			continue
		}
		if id == "" {
			id = c.ID
		}
		if c.ID != id || c.Object != "chat.completion.chunk" || c.Created == 0 || c.Model != "m1" {
			t.Errorf("chunk %d frames badly: %s", i, e.Data)
		}
		if c.Usage != nil {
			s.usageChunks++
			s.usage = [3]int{c.Usage.PromptTokens, c.Usage.CompletionTokens, c.Usage.TotalTokens}
			if len(c.Choices) != 0 || !strings.Contains(e.Data, `"choices":[]`) {
				t.Errorf("the usage chunk has choices: %s", e.Data)
			}
		} else if !strings.Contains(e.Data, `"usage":null`) {
			t.Errorf("chunk %d lacks usage null with include_usage: %s", i, e.Data)
		}
		for _, ch := range c.Choices {
			s.addChoice(t, i, ch.Index, ch.Delta.Role, ch.Delta.Content, ch.Delta.ReasoningContent, ch.FinishReason)
			for _, tc := range ch.Delta.ToolCalls {
				s.addCall(t, tc.Index, tc.ID, tc.Type, tc.Function.Name, tc.Function.Arguments)
			}
		}
	}
	return s
}

func (s *oaStream) addChoice(t *testing.T, i, index int, role string, content *string, reasoning string, finish *string) {
	t.Helper()
	if index != 0 || (i == 0) != (role == "assistant") {
		t.Errorf("chunk %d: index %d, role %q", i, index, role)
	}
	for _, d := range []string{reasoning, deref(content)} {
		if d != "" {
			s.deltas++
			s.widest = max(s.widest, utf8.RuneCountInString(d))
		}
	}
	s.reasoning += reasoning
	s.text += deref(content)
	if finish != nil {
		s.finish = *finish
	}
}

func (s *oaStream) addCall(t *testing.T, index int, id, typ, name string, args *string) {
	t.Helper()
	if index == len(s.calls) {
		if id == "" || typ != "function" || name == "" || args == nil || *args != "" {
			t.Errorf("tool call %d starts without id, type, name and empty arguments", index)
		}
		s.calls = append(s.calls, modelfixture.ToolCall{ID: id, Name: name})
		return
	}
	if index != len(s.calls)-1 || id != "" || name != "" || args == nil {
		t.Errorf("tool call %d: a fragment out of place (id %q, name %q)", index, id, name)
		return
	}
	s.deltas++
	s.widest = max(s.widest, utf8.RuneCountInString(*args))
	s.calls[index].Arguments += *args
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// richReply has every kind of content, in deltas of 3 runes.
var richReply = modelfixture.Reply{
	Reasoning: "The user greets; answer and look up both cities.",
	Text:      "Héllo — let me check the weather ☀.",
	ToolCalls: []modelfixture.ToolCall{
		{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Lyon","unit":"celsius"}`},
		{Name: "get_time", Arguments: `{"zone":"Europe/Paris"}`},
	},
	Usage: modelfixture.Usage{Input: 12, Output: 34},
	Chunk: 3,
}

func TestOpenAIStreamsEveryKindOfContent(t *testing.T) {
	m := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{richReply}})
	resp := ask(testCtx(t), t, m, modelfixture.OpenAI, true)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("got %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events, err := readSSE(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	s := assembleOpenAI(t, events)
	if s.reasoning != richReply.Reasoning || s.text != richReply.Text {
		t.Errorf("reasoning %q, text %q", s.reasoning, s.text)
	}
	if len(s.calls) != 2 || s.calls[0] != richReply.ToolCalls[0] || s.calls[1].Name != "get_time" ||
		s.calls[1].Arguments != richReply.ToolCalls[1].Arguments || s.calls[1].ID == "" {
		t.Errorf("tool calls %+v", s.calls)
	}
	if s.widest != 3 || s.deltas < 20 {
		t.Errorf("%d deltas of at most %d runes, want many of 3", s.deltas, s.widest)
	}
	if s.finish != "tool_calls" || s.usage != [3]int{12, 34, 46} || s.usageChunks != 1 || !s.done || s.errType != "" {
		t.Errorf("finish %q, usage %v in %d chunks, done %v, error %q", s.finish, s.usage, s.usageChunks, s.done, s.errType)
	}
}

func TestOpenAIFinishReasons(t *testing.T) {
	for stop, want := range map[modelfixture.Stop]string{"": "stop", modelfixture.StopMaxTokens: "length", "content_filter": "content_filter"} {
		m := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{{Text: "x", Stop: stop}}})
		events, err := readSSE(ask(testCtx(t), t, m, modelfixture.OpenAI, true).Body)
		if s := assembleOpenAI(t, events); err != nil || s.finish != want || s.text != "x" {
			t.Errorf("stop %q: finish %q, text %q, %v", stop, s.finish, s.text, err)
		}
	}
}

func TestOpenAIAnswersWithoutStream(t *testing.T) {
	m := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{richReply, modelfixture.Calls(modelfixture.ToolCall{Name: "f"})}})
	var c struct {
		ID, Object, Model string
		Created           int64
		Choices           []struct {
			Message struct {
				Role             string          `json:"role"`
				Content          json.RawMessage `json:"content"`
				ReasoningContent string          `json:"reasoning_content"`
				ToolCalls        []struct {
					ID, Type string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		}
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
			TotalTokens      int `json:"total_tokens"`
		}
	}
	resp := ask(testCtx(t), t, m, modelfixture.OpenAI, false)
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%v, %s", err, resp.Header.Get("Content-Type"))
	}
	msg := c.Choices[0].Message
	if c.Object != "chat.completion" || c.ID == "" || c.Created == 0 || c.Model != "m1" || c.Choices[0].FinishReason != "tool_calls" ||
		c.Usage.TotalTokens != 46 || msg.Role != "assistant" || string(msg.Content) != `"Héllo — let me check the weather ☀."` ||
		msg.ReasoningContent != richReply.Reasoning || len(msg.ToolCalls) != 2 || msg.ToolCalls[0].ID != "call_a" ||
		msg.ToolCalls[1].Type != "function" || msg.ToolCalls[1].Function.Arguments != `{"zone":"Europe/Paris"}` {
		t.Errorf("got %+v", c)
	}
	c.Choices = nil
	json.NewDecoder(ask(testCtx(t), t, m, modelfixture.OpenAI, false).Body).Decode(&c)
	if msg := c.Choices[0].Message; string(msg.Content) != "null" || msg.ToolCalls[0].Function.Arguments != "{}" {
		t.Errorf("a reply of calls alone: content %s, arguments %q", msg.Content, msg.ToolCalls[0].Function.Arguments)
	}
}
