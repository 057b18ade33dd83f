package codemode

import (
	"fmt"
	"strconv"
	"strings"
)

// maxSearchBytes bounds the declarations Search gives; the tools past it
// are counted, not declared.
const maxSearchBytes = 32 << 10

// Search returns what a model needs to call the tools matching query. An
// empty query lists each server's global and its tool names, one line
// each; words (all must match, in any case) select the tools whose
// server's global, name or description holds them, declared as TypeScript.
func Search(servers []Server, query string) string {
	globals := Globals(servers)
	words := strings.Fields(strings.ToLower(query))
	var b strings.Builder
	if len(words) == 0 {
		for i, s := range servers {
			names := make([]string, len(s.Tools))
			for j, t := range s.Tools {
				names[j] = t.Name
			}
			b.WriteString(globals[i])
			if s.Name != globals[i] {
				b.WriteString(" (" + s.Name + ")")
			}
			b.WriteString(": " + strings.Join(names, ", ") + "\n")
		}
		if b.Len() == 0 {
			return "No servers are ready."
		}
		return b.String() + "\nSearch with words to see the tools' declarations."
	}
	n, left, content := 0, 0, false
	var decls strings.Builder
	for i, s := range servers {
		var body strings.Builder
		for _, t := range s.Tools {
			hay := strings.ToLower(globals[i] + " " + s.Name + " " + t.Name + " " + t.Description)
			if !containsAll(hay, words) {
				continue
			}
			if decls.Len()+body.Len() > maxSearchBytes {
				left++
				continue
			}
			declareTool(&body, t)
			content = content || len(t.OutputSchema) == 0
			n++
		}
		if body.Len() == 0 {
			continue
		}
		if d := strings.TrimSpace(s.Description); d != "" {
			decls.WriteString(comment(d) + "\n")
		}
		decls.WriteString("declare const " + globals[i] + ": {\n" + body.String() + "};\n")
	}
	if n == 0 {
		return "No tool matches " + strconv.Quote(query) + "."
	}
	if content {
		b.WriteString(toolResultType + "\n")
	}
	b.WriteString(decls.String())
	if left > 0 {
		fmt.Fprintf(&b, "\n%d more tools match; search with more words to see them.\n", left)
	}
	return b.String()
}

func containsAll(hay string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}
