package authn

import (
	"slices"
	"testing"
)

func TestEmbedOriginsAreWrittenAsBrowsersWriteThem(t *testing.T) {
	got, err := EmbedOrigins([]string{"HTTPS://App.Example:443/", "http://localhost:3000", "https://app.example"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://app.example", "http://localhost:3000"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []string{"https://app.example/path", "ftp://app.example", "*", "https://app.example?x", "app.example"} {
		if _, err := EmbedOrigins([]string{bad}); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}
