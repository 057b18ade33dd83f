package samplingfixture

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What the fixture asks for.
const (
	Question     = "What is the weather in the city of this photo?"
	HaikuPrompt  = "Write a haiku about switchboards."
	SystemPrompt = "You are a terse assistant."
	StopSequence = "END"
	ModelHint    = "claude-haiku"
	ToolName     = "get_weather"
	// MaxRounds caps the requests of one sample_tools call.
	MaxRounds = 3
)

// PNG is a 1×1 transparent PNG, the image sample_text sends.
var PNG = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
	0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
	0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
	0x42, 0x60, 0x82,
}

// Weather is the tool's result for city.
func Weather(city string) string { return fmt.Sprintf("Weather in %s: 18°C, cloudy", city) }

// textRequest is sample_text's request.
func textRequest() *mcp.CreateMessageWithToolsParams {
	return &mcp.CreateMessageWithToolsParams{
		SystemPrompt:     SystemPrompt,
		MaxTokens:        100,
		StopSequences:    []string{StopSequence},
		IncludeContext:   "none",
		ModelPreferences: &mcp.ModelPreferences{Hints: []*mcp.ModelHint{{Name: ModelHint}}, SpeedPriority: 0.8},
		Messages: []*mcp.SamplingMessageV2{{Role: "user", Content: []mcp.Content{
			&mcp.TextContent{Text: HaikuPrompt},
			&mcp.ImageContent{MIMEType: "image/png", Data: PNG},
		}}},
	}
}

// weatherTool is the tool sample_tools offers.
var weatherTool = &mcp.Tool{
	Name:        ToolName,
	Description: "The current weather of a city.",
	InputSchema: map[string]any{
		"type":       "object",
		"properties": map[string]any{"city": map[string]any{"type": "string", "minLength": 2, "description": "the city"}},
		"required":   []any{"city"},
	},
}

// toolsRequest is sample_tools's request with the conversation so far.
func toolsRequest(history []*mcp.SamplingMessageV2) *mcp.CreateMessageWithToolsParams {
	return &mcp.CreateMessageWithToolsParams{
		MaxTokens:  200,
		Messages:   history,
		Tools:      []*mcp.Tool{weatherTool},
		ToolChoice: &mcp.ToolChoice{Mode: "auto"},
	}
}

// firstQuestion starts sample_tools's conversation.
func firstQuestion() []*mcp.SamplingMessageV2 {
	return []*mcp.SamplingMessageV2{{Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: Question}}}}
}

// answerCalls appends a reply and, if it calls tools, their results; it
// reports whether the conversation goes on.
func answerCalls(history []*mcp.SamplingMessageV2, res *mcp.CreateMessageWithToolsResult) ([]*mcp.SamplingMessageV2, bool) {
	var results []mcp.Content
	for _, c := range res.Content {
		if use, ok := c.(*mcp.ToolUseContent); ok {
			city, _ := use.Input["city"].(string)
			results = append(results, &mcp.ToolResultContent{ToolUseID: use.ID, Content: []mcp.Content{&mcp.TextContent{Text: Weather(city)}}})
		}
	}
	if len(results) == 0 {
		return history, false
	}
	history = append(history, &mcp.SamplingMessageV2{Role: "assistant", Content: res.Content},
		&mcp.SamplingMessageV2{Role: "user", Content: results})
	return history, true
}
