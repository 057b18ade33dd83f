package codemode

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestGlobalsAreUniqueIdentifiers(t *testing.T) {
	servers := []Server{{Name: "Files"}, {Name: "files"}, {Name: "my-server.example"}, {Name: "2fa"}, {Name: "class"}, {Name: "Ünïcode ✓"}, {Name: ""}, {Name: "files"}, {Name: "Console"}, {Name: "JSON"}, {Name: "文件"}, {Name: "ファイル"}}
	want := []string{"files", "files_2", "my_server_example", "_2fa", "class_", "n_code", "server", "files_3", "console_", "json", "server_2", "server_3"}
	if got := Globals(servers); !reflect.DeepEqual(got, want) {
		t.Errorf("globals %q, want %q", got, want)
	}
}

func TestSearchDeclaresTheMatchingToolsAsTypeScript(t *testing.T) {
	servers := []Server{
		{Name: "Files", Description: "The project's files.", Tools: []Tool{
			{
				Name: "list_directory", Description: "List a directory.",
				InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The path"},"recursive":{"type":"boolean"},"sort":{"enum":["name","size"]}},"required":["path"]}`),
				OutputSchema: json.RawMessage(`{"type":"object","properties":{"entries":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"size":{"type":"integer"}},"required":["name","size"]}}},"required":["entries"]}`),
			},
			{
				Name: "read-file", Description: "Read a file.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"range":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":["number","null"]}}]},"meta":{"type":"object","additionalProperties":{"type":"string"}},"node":{"$ref":"#/defs/node"}}}`),
			},
		}},
		{Name: "Mail", Tools: []Tool{{Name: "send", Description: "Send mail."}}},
	}
	got := Search(servers, "FILE")
	want := `type ToolContent = { type: "text"; text: string } | { type: string; [key: string]: unknown };
/** The project's files. */
declare const files: {
  /** List a directory. */
  list_directory(args: { /** The path */ path: string; recursive?: boolean; sort?: "name" | "size" }): Promise<{ entries: { name: string; size: number }[] }>;
  /** Read a file. */
  "read-file"(args?: { meta?: { [key: string]: string }; node?: unknown; path?: string; range?: string | (number | null)[] }): Promise<string | ToolContent[]>;
};
`
	if got != want {
		t.Errorf("search:\n%s\nwant:\n%s", got, want)
	}
	if got, want := Search(servers, "list directory"), "declare const files"; !strings.Contains(got, want) || strings.Contains(got, "read-file") {
		t.Errorf("two words: %s", got)
	}
	if got := Search(servers, "nothing like it"); got != `No tool matches "nothing like it".` {
		t.Errorf("no match: %q", got)
	}
	if got, want := Search(servers, ""), "files (Files): list_directory, read-file\nmail (Mail): send\n\nSearch with words to see the tools' declarations."; got != want {
		t.Errorf("empty query:\n%s\nwant:\n%s", got, want)
	}
}

func TestSearchBoundsItsDeclarations(t *testing.T) {
	deep := `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"object","properties":{"d":{"type":"object","properties":{"e":{"type":"array","items":{"type":"array","items":{"type":"string"}}}}}}}}}}}}}`
	both := `{"allOf":[{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},{"anyOf":[{"type":"object","properties":{"n":{"type":"number"}}},{"type":"null"}]}]}`
	servers := []Server{{Name: "s", Tools: []Tool{
		{Name: "deep", InputSchema: json.RawMessage(deep), OutputSchema: json.RawMessage(both)},
	}}}
	want := `declare const s: {
  deep(args?: { a?: { b?: { c?: { d?: { e?: unknown[][] } } } } }): Promise<{ id: string } & ({ n?: number } | null)>;
};
`
	if got := Search(servers, "deep"); got != want {
		t.Errorf("search:\n%s\nwant:\n%s", got, want)
	}

	var many []Tool
	for i := range 2000 {
		many = append(many, Tool{Name: fmt.Sprintf("tool_%d", i), Description: "Does a thing."})
	}
	got := Search([]Server{{Name: "big", Tools: many}}, "thing")
	if len(got) > maxSearchBytes+1000 {
		t.Errorf("search gave %d bytes, over its bound", len(got))
	}
	if !strings.Contains(got, "tool_0(args?: {})") || !strings.HasSuffix(got, " more tools match; search with more words to see them.\n") {
		t.Errorf("search of many tools ends:\n%s", got[max(0, len(got)-300):])
	}
}
