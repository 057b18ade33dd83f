package web

import (
	"slices"
	"strings"
	"testing"
)

// A streaming text's blocks make the text again, each but the last is cut
// after a line's end (or, in a line past streamLine, after a space), and a
// block once cut stays the same however the text grows.
func TestStreamPiecesAreCutOnceAndForAll(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 12*streamLine; i++ {
		switch {
		case i > 2000 && i < 4000: // a line far longer than streamLine
			b.WriteString("more ")
		case i%400 == 399:
			b.WriteString("\n\n")
		default:
			b.WriteString("word ")
		}
	}
	text := b.String()
	whole := streamPieces(text)
	if got := strings.Join(whole, ""); got != text {
		t.Fatal("the blocks do not make the text")
	}
	long := false
	for _, p := range whole[:len(whole)-1] {
		if len(p) < streamPiece || !strings.HasSuffix(p, "\n") && !strings.HasSuffix(p, " ") {
			t.Errorf("a block of %d bytes ends %q", len(p), p[max(0, len(p)-5):])
		}
		long = long || !strings.HasSuffix(p, "\n")
	}
	if !long || len(whole) < 8 {
		t.Errorf("%d blocks, one cut in a long line: %v; the test's text does not try both cuts", len(whole), long)
	}
	for n := 0; n <= len(text); n += 97 {
		pieces := streamPieces(text[:n])
		done := pieces[:len(pieces)-1]
		if !slices.Equal(done, whole[:len(done)]) {
			t.Fatalf("at %d bytes the blocks are not those of the whole text", n)
		}
	}
	if got := streamPieces("short"); !slices.Equal(got, []string{"short"}) {
		t.Errorf("a short text: %q", got)
	}
}
