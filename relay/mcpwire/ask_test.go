package mcpwire

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestLongMessageIsCutWithANote(t *testing.T) {
	long := strings.Repeat("spam ", 20<<10) // 100 KiB
	a, err := Elicitation(&mcp.ElicitParams{Message: long, RequestedSchema: json.RawMessage(`{"type":"object"}`)}, wire.AskFromElicitation)
	if err != nil {
		t.Fatal(err)
	}
	msg := a.Message
	if n := utf8.RuneCountInString(msg); n > maxAskMessageRunes+200 || !strings.HasPrefix(msg, "spam spam") || !strings.Contains(msg, "102400 characters") {
		t.Fatalf("message of %d runes ends %q", n, msg[max(0, len(msg)-100):])
	}
}

func TestElicitationBecomesAnAsk(t *testing.T) {
	form, err := Elicitation(&mcp.ElicitParams{Message: "Who\x1b?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"}}}`)}, wire.AskFromInput)
	if err != nil || form.Kind != wire.AskForm || form.From != wire.AskFromInput || form.Message != "Who?" ||
		string(form.Schema) != `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"}}}` {
		t.Errorf("form %+v (%s), %v; want the schema in the order given", form, form.Schema, err)
	}
	confirm, err := Elicitation(&mcp.ElicitParams{Message: "Sure?"}, wire.AskFromElicitation)
	if err != nil || string(confirm.Schema) != `{"type":"object"}` {
		t.Errorf("a form without a schema: %+v, %v; want a confirmation", confirm, err)
	}
	url, err := Elicitation(&mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://example.com/x", ElicitationID: "e\x1b1"}, wire.AskFromURLRequired)
	if err != nil || url.Kind != wire.AskURL || url.URL != "https://example.com/x" || url.ElicitationID != "e 1" || url.Schema != nil {
		t.Errorf("url %+v, %v", url, err)
	}
	big := map[string]any{"type": "object", "description": strings.Repeat("d", maxSchemaBytes)}
	if _, err := Elicitation(&mcp.ElicitParams{Message: "x", RequestedSchema: big}, wire.AskFromElicitation); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("an oversized schema: %v", err)
	}
}
