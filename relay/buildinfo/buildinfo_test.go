package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestVersionNamesTheCommit(t *testing.T) {
	for _, tc := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{nil, Release},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "9a7361500c0ffee1234"}}, Release + "+9a7361500c0f"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "9a7361500c0ffee1234"}, {Key: "vcs.modified", Value: "true"}}, Release + "+9a7361500c0f-dirty"},
	} {
		if got := versionOf(tc.settings); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.settings, got, tc.want)
		}
	}
	if Version() == "" {
		t.Error("no version")
	}
}
