package gateway

import (
	"strings"
	"testing"
)

func TestExposedNamesAreValidStableAndDistinct(t *testing.T) {
	const server = "0a1b2c3d4e5f"
	long := strings.Repeat("x", 200)
	names := []string{"echo", "with space", "with_space", "ünï", long, long + "y", "a.b-c_d"}
	got := exposedNames(server, names)
	again := exposedNames(server, []string{long + "y", "a.b-c_d", "ünï", "echo", long, "with_space", "with space"})
	seen := map[string]string{}
	for _, n := range names {
		e := got[n]
		if e != again[n] {
			t.Errorf("%q is %q in one listing and %q in another", n, e, again[n])
		}
		if len(e) > maxName || strings.IndexFunc(e, func(r rune) bool { return !allowedRune(r) }) >= 0 {
			t.Errorf("%q exposed as %q: not 128 characters of [A-Za-z0-9_.-]", n, e)
		}
		if !strings.HasPrefix(e, server+nameSeparator) {
			t.Errorf("%q exposed as %q: not under its server", n, e)
		}
		if other, dup := seen[e]; dup {
			t.Errorf("%q and %q both exposed as %q", n, other, e)
		}
		seen[e] = n
	}
	for _, n := range []string{"echo", "with_space", "a.b-c_d"} {
		if got[n] != server+"__"+n {
			t.Errorf("%q exposed as %q, want it verbatim", n, got[n])
		}
	}
}

func TestRewrittenNameCollidingWithAVerbatimOneGetsASuffix(t *testing.T) {
	const server = "0a1b2c3d4e5f"
	odd := "a b"
	taken := strings.TrimPrefix(rewritten(server, odd), server+nameSeparator) // a verbatim name equal to odd's rewriting
	got := exposedNames(server, []string{odd, taken})
	if got[taken] != server+"__"+taken || got[odd] != rewritten(server, odd)+"-2" {
		t.Errorf("collision resolved as %v", got)
	}
}

func TestURIsMapBothWays(t *testing.T) {
	for _, uri := range []string{"file:///notes/a.txt", "note://{name}", "urn:x:y", "plain"} {
		e := exposedURI("0a1b2c3d4e5f", uri)
		server, own, ok := upstreamURI(e)
		if !ok || server != "0a1b2c3d4e5f" || own != uri {
			t.Errorf("%q → %q → %q %q %v", uri, e, server, own, ok)
		}
	}
	if _, _, ok := upstreamURI("file:///x"); ok {
		t.Error("an unmapped URI reversed")
	}
}
