package llm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The chat-completions request, as this package sends it.

type oaRequest struct {
	Model         string          `json:"model"`
	Messages      []oaMessage     `json:"messages"`
	MaxTokens     int             `json:"max_tokens,omitempty"`
	Temperature   *float64        `json:"temperature,omitempty"`
	Stop          []string        `json:"stop,omitempty"`
	Tools         []oaTool        `json:"tools,omitempty"`
	ToolChoice    any             `json:"tool_choice,omitempty"`
	Stream        bool            `json:"stream"`
	StreamOptions oaStreamOptions `json:"stream_options"`
}

type oaStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// oaMessage is one message; Content is a string, a list of parts, or null.
type oaMessage struct {
	Role       string       `json:"role"`
	Content    any          `json:"content"`
	ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
}

type oaPart struct {
	Type       string        `json:"type"` // text, image_url, input_audio
	Text       string        `json:"text,omitempty"`
	ImageURL   *oaImageURL   `json:"image_url,omitempty"`
	InputAudio *oaInputAudio `json:"input_audio,omitempty"`
}

type oaImageURL struct {
	URL string `json:"url"`
}

type oaInputAudio struct {
	Data   string `json:"data"`
	Format string `json:"format"` // wav or mp3
}

type oaTool struct {
	Type     string     `json:"type"` // function
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

type oaToolCall struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"` // function
	Function oaFunctionCall `json:"function"`
}

type oaFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // a JSON object, as text
}

// audioFormats are the audio types chat completions takes, by MIME type.
var audioFormats = map[string]string{
	"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav",
	"audio/mpeg": "mp3", "audio/mp3": "mp3",
}

// TakesAudio reports whether an endpoint of kind k takes audio of the given
// MIME type: chat completions takes WAV and MP3; Messages takes none.
func (k Kind) TakesAudio(mimeType string) bool {
	_, ok := audioFormats[mimeType]
	return k == OpenAI && ok
}

// encodeOpenAI is req as a streamed chat-completions request.
func encodeOpenAI(model string, req *Request) ([]byte, error) {
	out := oaRequest{Model: model, MaxTokens: req.MaxTokens, Temperature: req.Temperature, Stop: req.Stop,
		Stream: true, StreamOptions: oaStreamOptions{IncludeUsage: true}}
	if req.System != "" {
		out.Messages = append(out.Messages, oaMessage{Role: "system", Content: req.System})
	}
	for i, m := range req.Messages {
		if m.Role == Assistant {
			out.Messages = append(out.Messages, oaAssistant(m))
			continue
		}
		msgs, err := oaUser(m)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i+1, err)
		}
		out.Messages = append(out.Messages, msgs...)
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, oaTool{Type: "function", Function: oaFunction{
			Name: t.Name, Description: t.Description, Parameters: orObject(t.InputSchema)}})
	}
	if len(out.Tools) > 0 {
		out.ToolChoice = oaToolChoice(req.ToolChoice)
	}
	return json.Marshal(out)
}

// oaToolChoice is the tool_choice value of c; nil leaves it out.
func oaToolChoice(c ToolChoice) any {
	switch c.Mode {
	case ToolAuto, ToolNone, ToolRequired:
		return string(c.Mode)
	case ToolNamed:
		return map[string]any{"type": "function", "function": map[string]string{"name": c.Name}}
	}
	return nil
}

// oaAssistant is an assistant's message: its text and its tool calls.
// Reasoning stays out: chat completions takes none back.
func oaAssistant(m Message) oaMessage {
	msg := oaMessage{Role: "assistant"}
	var texts []string
	for _, p := range m.Parts {
		switch p.Type {
		case PartText:
			texts = append(texts, p.Text)
		case PartToolCall:
			msg.ToolCalls = append(msg.ToolCalls, oaToolCall{ID: p.ToolCall.ID, Type: "function",
				Function: oaFunctionCall{Name: p.ToolCall.Name, Arguments: string(orEmpty(p.ToolCall.Arguments))}})
		}
	}
	if len(texts) > 0 {
		msg.Content = strings.Join(texts, "\n\n")
	}
	return msg
}

// oaUser is a user's message: its tool results as "tool" messages first
// (they answer the calls just before), then one user message with the
// rest and the images of the results, which a "tool" message cannot hold.
func oaUser(m Message) ([]oaMessage, error) {
	var out []oaMessage
	var parts []oaPart
	for _, p := range m.Parts {
		switch p.Type {
		case PartToolResult:
			text, images := oaToolResult(p.ToolResult)
			out = append(out, oaMessage{Role: "tool", ToolCallID: p.ToolResult.CallID, Content: text})
			if len(images) > 0 {
				parts = append(parts, oaPart{Type: "text", Text: "Images in the result of tool call " + p.ToolResult.CallID + ":"})
				parts = append(parts, images...)
			}
		case PartText:
			parts = append(parts, oaPart{Type: "text", Text: p.Text})
		case PartImage:
			parts = append(parts, oaImage(p))
		case PartAudio:
			f, ok := audioFormats[p.MIMEType]
			if !ok {
				return nil, fmt.Errorf("audio of type %s: chat completions takes only WAV and MP3", wire.Sanitize(p.MIMEType, 60))
			}
			parts = append(parts, oaPart{Type: "input_audio", InputAudio: &oaInputAudio{Data: base64.StdEncoding.EncodeToString(p.Data), Format: f}})
		}
	}
	if len(parts) > 0 {
		out = append(out, oaMessage{Role: "user", Content: parts})
	}
	return out, nil
}

// oaToolResult is a tool result's text and its images.
func oaToolResult(r *ToolResult) (string, []oaPart) {
	var texts []string
	var images []oaPart
	if r.IsError {
		texts = append(texts, "[the tool reported an error]")
	}
	for _, p := range r.Parts {
		if p.Type == PartImage {
			images = append(images, oaImage(p))
			continue
		}
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n\n"), images
}

// oaImage is an image as an image_url part with a data: URL.
func oaImage(p Part) oaPart {
	return oaPart{Type: "image_url", ImageURL: &oaImageURL{URL: "data:" + p.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(p.Data)}}
}
