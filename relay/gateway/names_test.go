package gateway

import "testing"

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
