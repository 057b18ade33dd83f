package web

import (
	"encoding/json"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestToolHintsShowDefaultsAsDefaults(t *testing.T) {
	for _, tc := range []struct {
		annotations string
		destructive bool // marked so: asks before it runs
		want        []string
	}{
		{``, false, []string{"may change things (not stated)", "destructive (not stated)", "not idempotent (not stated)", "open world (not stated)"}},
		{`{"readOnlyHint": true, "openWorldHint": false}`, false, []string{"read-only", "closed world"}},
		{`{"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true}`, false, []string{"may change things", "not destructive", "idempotent", "open world (not stated)"}},
		{`{"destructiveHint": true}`, true, []string{"may change things (not stated)", "destructive", "not idempotent (not stated)", "open world (not stated)"}},
	} {
		h := hintsOf(wire.Tool{Annotations: json.RawMessage(tc.annotations)})
		var got []string
		for _, b := range h.badges() {
			got = append(got, b.text)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: badges %q, want %q", tc.annotations, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: badges %q, want %q", tc.annotations, got, tc.want)
				break
			}
		}
		if h.markedDestructive() != tc.destructive {
			t.Errorf("%s: marked destructive = %t", tc.annotations, h.markedDestructive())
		}
	}
}

func TestSafeIconTakesOnlyDataImagesOfAllowedTypes(t *testing.T) {
	for src, ok := range map[string]bool{
		"data:image/png;base64,iVBORw0KGgo=":           true,
		"data:image/svg+xml;base64,PHN2Zz4=":           false,
		"https://example.com/icon.png":                 false,
		"data:image/png;base64,not base64!":            false,
		"data:text/html;base64,PHNjcmlwdD4=":           false,
		"javascript:alert(1)//data:image/png;base64,A": false,
	} {
		if _, got := safeIcon(wire.Icon{Src: src}); got != ok {
			t.Errorf("safeIcon(%q) = %t, want %t", src, got, ok)
		}
	}
}
