package web

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestTypedRootsAreCheckedAsTheRelayChecksThem(t *testing.T) {
	have := []wire.Root{{URI: "file:///srv"}}
	cases := []struct {
		typed, name string
		want        string // the new root's URI, or a part of the error
		ok          bool
	}{
		{"file:///home/ada/code", "Code", "file:///home/ada/code", true},
		{"  /home/ada/my notes ", "", "file:///home/ada/my%20notes", true},
		{"", "", "type the folder", false},
		{"https://example.com", "", "must start with file:// (it is \"https://example.com\"); type an absolute path", false},
		{"relative/dir", "", "must start with file://", false},
		{"file:///srv", "", "already", false},
		{"/srv", "", "already", false},
		{"file:///a", "bad\x1bname", "control characters", false},
	}
	for _, c := range cases {
		got, err := withRoot(have, c.typed, c.name)
		switch {
		case c.ok && (err != nil || len(got) != 2 || got[1].URI != c.want || got[1].Name != c.name):
			t.Errorf("withRoot(%q, %q) = %+v, %v; want %s added", c.typed, c.name, got, err, c.want)
		case !c.ok && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("withRoot(%q) error %v; want one saying %q", c.typed, err, c.want)
		}
	}
	if len(have) != 1 {
		t.Errorf("withRoot changed the list it was given: %+v", have)
	}
}

func TestJournalCountSaysWhatIsShownAndDropped(t *testing.T) {
	if got := journalCount(1000, 3, 25, "message"); got != "1000 messages, 3 shown; 25 older ones dropped" {
		t.Errorf("count = %q", got)
	}
	if got := journalCount(1, 1, 0, "message"); got != "1 message" {
		t.Errorf("count = %q", got)
	}
}
