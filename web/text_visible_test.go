package web

import "testing"

func TestVisibleControlsShowsEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttext\nnext":           "plain\ttext\nnext",
		"red \x1b[31m nul\x00 bell\a": `red \x1b[31m nul\x00 bell\x07`,
		"rtl \u202eevil":              `rtl \u202eevil`,
		"bad \xff byte":               "bad \ufffd byte",
		"del\x7f c1\u0085":            `del\x7f c1\u0085`,
	} {
		if got := visibleControls(in); got != want {
			t.Errorf("visibleControls(%q) = %q, want %q", in, got, want)
		}
	}
}
