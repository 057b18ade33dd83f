package mcpwire

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestConvertContent(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   mcp.Content
		want string // the wire.Content as JSON
	}{
		{"text", &mcp.TextContent{Text: "a\nb"}, `{"type":"text","text":"a\nb"}`},
		{"image", &mcp.ImageContent{MIMEType: "image/png", Data: []byte{1, 2}}, `{"type":"image","mimeType":"image/png","data":"AQI="}`},
		{"audio", &mcp.AudioContent{MIMEType: "audio/wav", Data: []byte{3}}, `{"type":"audio","mimeType":"audio/wav","data":"Aw=="}`},
		{"resource link", &mcp.ResourceLink{URI: "test://a", Name: "a", MIMEType: "text/plain"}, `{"type":"resource_link","mimeType":"text/plain","uri":"test://a","name":"a"}`},
		{"described resource link", &mcp.ResourceLink{URI: "test://a", Name: "a\x1b[2J", Title: "The A\u202e", Description: "line one\nline\x07two", Size: ptr(int64(42)),
			Annotations: &mcp.Annotations{Audience: []mcp.Role{"user", "robot", "user"}, Priority: 0.5, LastModified: "2026-01-02T03:04:05Z"}},
			`{"type":"resource_link","uri":"test://a","name":"a [2J","title":"The A","description":"line one\nlinetwo","size":42,"annotations":{"audience":["user"],"priority":0.5,"lastModified":"2026-01-02T03:04:05Z"}}`},
		{"resource link with an unusable URI", &mcp.ResourceLink{URI: "test://a\nb", Name: "a", Size: ptr(int64(-3))}, `{"type":"resource_link","name":"a"}`},
		{"annotations out of range", &mcp.TextContent{Text: "t", Annotations: &mcp.Annotations{Priority: 7, Audience: []mcp.Role{"everyone"}}}, `{"type":"text","text":"t"}`},
		{"annotated text", &mcp.TextContent{Text: "t", Annotations: &mcp.Annotations{Audience: []mcp.Role{"assistant"}}}, `{"type":"text","text":"t","annotations":{"audience":["assistant"]}}`},
		{"embedded text", &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://t", Text: "hi"}},
			`{"type":"resource","resource":{"uri":"test://t","text":"hi"}}`},
		{"embedded blob", &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://b", MIMEType: "application/octet-stream", Blob: []byte{255}}},
			`{"type":"resource","resource":{"uri":"test://b","mimeType":"application/octet-stream","blob":"/w=="}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := content(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(got)
			if string(b) != tc.want {
				t.Errorf("got %s\nwant %s", b, tc.want)
			}
		})
	}
}

func TestConvertContentRejectsUnknownKinds(t *testing.T) {
	for _, c := range []mcp.Content{&mcp.ToolUseContent{Name: "x"}, &mcp.EmbeddedResource{}} {
		if got, err := content(c); err == nil {
			t.Errorf("%T converted to %+v", c, got)
		}
	}
}

func ptr[T any](v T) *T { return &v }
