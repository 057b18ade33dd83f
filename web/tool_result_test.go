package web

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

func TestToolResultShowsEveryBlockSafely(t *testing.T) {
	png := "iVBORw0KGgo="
	r := &wire.CallToolResult{
		Content: []wire.Content{
			{Type: wire.ContentText, Text: "esc\x1b[0m " + hostile},
			{Type: wire.ContentImage, MIMEType: "image/png", Data: png},
			{Type: wire.ContentImage, MIMEType: "image/svg+xml", Data: "PHN2Zz4="},
			{Type: wire.ContentAudio, MIMEType: "audio/wav", Data: "UklGRg=="},
			{Type: wire.ContentResourceLink, URI: "file:///notes.txt", Name: hostile},
			{Type: wire.ContentResource, Resource: json.RawMessage(`{"uri": "x://a.bin", "mimeType": "application/octet-stream", "blob": "AAEC"}`)},
		},
		StructuredContent: json.RawMessage(`{"n": 1}`),
		OutputCheck:       &wire.OutputCheck{Problems: []wire.SchemaProblem{{Path: "/n", Reason: "must be text"}}},
	}
	html := rendered(t, renderToolResult(store.Call{ID: "c1", Name: "t", Tool: r, Size: 100}))
	for _, want := range []string{`esc\x1b[0m`, `src="data:image/png;base64,` + png + `"`, `controls`, `src="data:audio/wav;base64,UklGRg=="`,
		`class="read-link`, `Download a.bin (3 bytes)`, `Does not match the tool&#39;s output schema`, `data-path="/n"`, `class="json-tree`} {
		if !strings.Contains(html, want) {
			t.Errorf("the result lacks %s", want)
		}
	}
	if strings.Contains(html, "image/svg+xml;base64") || strings.Contains(html, "\x1b") {
		t.Error("an SVG image or a raw control character reached the page")
	}
	if strings.Contains(html, "result-large") || strings.Contains(html, "result-download") {
		t.Error("a small result offers a download")
	}
}

func TestLargeToolResultShowsAPreview(t *testing.T) {
	text := strings.Repeat("x", 3*maxPreview)
	r := &wire.CallToolResult{Content: []wire.Content{{Type: wire.ContentText, Text: text}, {Type: wire.ContentText, Text: "second"}}}
	html := rendered(t, renderToolResult(store.Call{ID: "c1", Name: "big", Tool: r, Size: len(text) + 100}))
	if strings.Count(html, "x") > maxPreview+100 {
		t.Errorf("the preview holds %d characters", strings.Count(html, "x"))
	}
	for _, want := range []string{"result-large", "result-download", "more not shown"} {
		if !strings.Contains(html, want) {
			t.Errorf("a large result lacks %s", want)
		}
	}
}
