package toolnames_test

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/toolnames"
)

func TestNamesAreValidStableAndDistinct(t *testing.T) {
	long := strings.Repeat("x", 200)
	names := []string{"echo", "with space", "with_space", "ünï", long, long + "y", "a.b-c_d"}
	shuffled := []string{long + "y", "a.b-c_d", "ünï", "echo", long, "with_space", "with space"}
	for _, tc := range []struct {
		rules    toolnames.Rules
		server   string
		verbatim []string
	}{
		{toolnames.MCP, "0a1b2c3d4e5f", []string{"echo", "with_space", "a.b-c_d"}},
		{toolnames.Model, "0a1b2c3d4e5f", []string{"echo", "with_space"}},
		{toolnames.Model, strings.Repeat("s", 64), nil}, // a longest id leaves no room: every name is rewritten
	} {
		got, again := tc.rules.Names(tc.server, names), tc.rules.Names(tc.server, shuffled)
		seen := map[string]string{}
		for _, n := range names {
			e := got[n]
			if e != again[n] {
				t.Errorf("%+v: %q is %q in one listing and %q in another", tc.rules, n, e, again[n])
			}
			if len(e) > tc.rules.Max || e == "" || !tc.rules.Valid(e) {
				t.Errorf("%+v: %q named %q: too long or with a character the rules refuse", tc.rules, n, e)
			}
			if other, dup := seen[e]; dup {
				t.Errorf("%+v: %q and %q both named %q", tc.rules, n, other, e)
			}
			seen[e] = n
		}
		for _, n := range tc.verbatim {
			if got[n] != tc.server+"__"+n {
				t.Errorf("%+v: %q named %q, want it verbatim", tc.rules, n, got[n])
			}
		}
	}
	if toolnames.Model.Name("s", "a.b") == "s__a.b" {
		t.Error("a dot kept in a model's tool name")
	}
}

func TestRewrittenNameCollidingWithAVerbatimOneGetsASuffix(t *testing.T) {
	const server = "0a1b2c3d4e5f"
	odd := "a b"
	taken := strings.TrimPrefix(toolnames.MCP.Rewritten(server, odd), server+"__") // a verbatim name equal to odd's rewriting
	got := toolnames.MCP.Names(server, []string{odd, taken})
	if got[taken] != server+"__"+taken || got[odd] != toolnames.MCP.Rewritten(server, odd)+"-2" {
		t.Errorf("collision resolved as %v", got)
	}
}
