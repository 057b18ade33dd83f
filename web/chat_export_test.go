package web

import (
	"strings"
	"testing"
)

func TestChatExportOffersBothFormatsOnlyForAConversation(t *testing.T) {
	html := rendered(t, &ChatExport{Chat: "c1"})
	for _, class := range []string{"chat-export-md", "chat-export-json"} {
		b := element(html, `class="`+class)
		if b == "" || strings.Contains(b, "disabled") {
			t.Errorf("%s missing or disabled: %q", class, b)
		}
	}
	if !strings.Contains(html, "Export Markdown") || !strings.Contains(html, "Export JSON") {
		t.Errorf("buttons unlabelled:\n%s", html)
	}
	html = rendered(t, &ChatExport{})
	if b := element(html, `class="chat-export-md`); !strings.Contains(b, "disabled") {
		t.Errorf("export offered without a conversation: %s", b)
	}
	html = rendered(t, &ChatExport{Chat: "c1", busy: "json"})
	if !strings.Contains(html, "Exporting…") || !strings.Contains(element(html, `class="chat-export-md`), "disabled") {
		t.Errorf("no busy state while exporting:\n%s", html)
	}
}
