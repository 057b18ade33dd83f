package e2e

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/buildinfo"
)

// The dashboard's footer names the build of the relay it talks to.
func TestFooterShowsTheRelaysVersion(t *testing.T) {
	r := startRelay(t)
	p := openTab(t)
	p.navigate(r.loginURL(t))
	p.waitRelay(stateLive)
	want := "Switchboard " + buildinfo.Version()
	p.waitText("#version", want)
	if got := p.text("#version"); got != want {
		t.Errorf("footer %q, want %q", got, want)
	}
}
