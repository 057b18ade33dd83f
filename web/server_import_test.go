package web

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/mcpservers"
)

func TestCheckImport(t *testing.T) {
	for doc, want := range map[string]string{
		`{"mcpServers": {"a": {"url": "https://a.example/mcp"}, "b": {"command": "x"}}}`: "",
		`{"servers": {}}`: "",
		``:                "Choose a file",
		`not json`:        "not a server list",
		`{"other": 1}`:    `no "mcpServers"`,
		strings.Repeat(" ", mcpservers.MaxDocumentBytes+1): "at most",
	} {
		got := checkImport(doc)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("checkImport(%.40q) = %q, want %q", doc, got, want)
		}
	}
}
