// Package buildinfo says which build of Switchboard runs: its release and,
// when the binary was built from a Git checkout, the commit.
package buildinfo

import (
	"runtime/debug"
	"sync"
)

// Release is the version of the release this source belongs to.
const Release = "0.1.0"

// Version is Release, followed by "+" and the first twelve hex digits of
// the commit it was built from, and "-dirty" when the checkout had changes;
// Release alone when the build carries no commit (go run, go test).
var Version = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Release
	}
	return versionOf(info.Settings)
})

// versionOf is the version of a build with settings.
func versionOf(settings []debug.BuildSetting) string {
	var rev string
	var dirty bool
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return Release
	}
	v := Release + "+" + rev[:min(12, len(rev))]
	if dirty {
		v += "-dirty"
	}
	return v
}
