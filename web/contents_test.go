package web

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestContentsRenderByType(t *testing.T) {
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\nfake"))
	items := []wire.ResourceContents{
		{URI: "file:///note.txt", MIMEType: "text/plain", Text: hostile},
		{URI: "file:///data.json", MIMEType: "application/json; charset=utf-8", Text: `{"name":"` + `\u003cb\u003e` + `","list":[1,true,null],"deep":{"x":{"y":{}}}}`},
		{URI: "file:///pic.png", MIMEType: "image/png", Blob: png},
		{URI: "file:///pic.svg", MIMEType: "image/svg+xml", Blob: png},
		{URI: "file:///tone.wav", MIMEType: "audio/wav", Blob: png},
		{URI: "file:///dir/../x%2F..%2F.evil name.bin?q=1", MIMEType: "text/html", Blob: png},
		{URI: "file:///bad", MIMEType: "image/png", Blob: "not base64!"},
	}
	html := rendered(t, renderContents(items))
	kinds := []string{"text", "json", "image", "download", "audio", "download", "invalid"}
	for i, c := range items {
		tag := element(html, `data-uri="`+strings.ReplaceAll(c.URI, "&", "&amp;")+`"`)
		if !strings.Contains(tag, `data-kind="`+kinds[i]+`"`) {
			t.Errorf("%s: want kind %s, got %s", c.URI, kinds[i], tag)
		}
	}
	for _, want := range []string{
		`class="content-text code-block">&lt;img`,
		`<span class="json-key">name: </span>`, `<span class="json-value">&#34;&lt;b&gt;&#34;</span>`, `{3 keys}`,
		`src="data:image/png;base64,` + png + `"`,
		`src="data:audio/wav;base64,`,
		`href="data:application/octet-stream;base64,` + png + `"`,
		`download="pic.svg"`, `download="x2F..2F.evilname.bin"`,
		"Download pic.svg (12 bytes)",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("contents lack %s:\n%s", want, html)
		}
	}
	if strings.Contains(html, "data:image/svg") || strings.Contains(html, "data:text/html") {
		t.Errorf("a blob of an unsafe type is shown inline:\n%s", html)
	}
}

func TestFileNameIsSafe(t *testing.T) {
	for uri, want := range map[string]string{
		"file:///a/b/report.pdf":               "report.pdf",
		"https://x/..":                         "resource.bin",
		"test://x/.hidden":                     "hidden",
		"test://x/con<>:\"|?*.txt":             "con",
		"":                                     "resource.bin",
		"test://x/" + strings.Repeat("a", 200): strings.Repeat("a", maxFileName),
	} {
		if got := fileName(uri); got != want {
			t.Errorf("fileName(%q) = %q, want %q", uri, got, want)
		}
	}
}

func TestJSONTreeKeepsOrderAndRefusesHugeDocuments(t *testing.T) {
	tree, ok := parseJSONTree(`{"b":1,"a":[2,{"c":"d"}]}`)
	if !ok || len(tree.Children) != 2 || tree.Children[0].Key != "b" || tree.Children[1].Children[1].Children[0].Scalar != `"d"` {
		t.Fatalf("tree %+v", tree)
	}
	if _, ok := parseJSONTree(`{"a":1} trailing`); ok {
		t.Error("trailing data parsed")
	}
	if _, ok := parseJSONTree("[" + strings.Repeat("1,", maxTreeNodes) + "1]"); ok {
		t.Error("a document over the node limit made a tree")
	}
}

func TestValidBase64(t *testing.T) {
	for s, want := range map[string]bool{
		"": true, "AAAA": true, "AA==": true, "AAA=": true, "iVBORw0KGgo=": true,
		"AAA": false, "A===": false, "AA=A": false, "AA AA": false, "AAA\"": false, "AA\n=": false, "not base64!": false,
	} {
		if got := validBase64(s); got != want {
			t.Errorf("validBase64(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestResourcesTabShowsSubscriptions(t *testing.T) {
	tab := &ResourcesTab{
		ServerID:      "s1",
		Resources:     []wire.Resource{{URI: "file:///a", Name: "a"}, {URI: "file:///b", Name: "b"}, {URI: "file:///c", Name: "c"}},
		Templates:     []wire.ResourceTemplate{{URITemplate: "file:///{name}", Name: "files"}},
		Capabilities:  &wire.ServerCapabilities{Resources: &wire.ResourceCapability{Subscribe: true}},
		Subscriptions: []wire.Subscription{{URI: "file:///a", Updated: "2026-01-02T03:04:05.000Z"}, {URI: "file:///b", Error: hostile}, {URI: "file:///gone"}},
		Ready:         true,
	}
	html := app.HTMLString(tab)
	a := element(html, `class="resource-subscribe`, `aria-label="Unsubscribe from a"`)
	if a == "" || strings.Contains(a, `data-subscribed="false"`) || strings.Contains(a, "aria-pressed") {
		t.Errorf("subscribed resource's button: %s", a)
	}
	if c := element(html, `class="resource-subscribe`, `aria-label="Subscribe to c"`); !strings.Contains(c, `data-subscribed="false"`) {
		t.Errorf("unsubscribed resource's button: %s", c)
	}
	if element(html, `class="subscription-item item"`, `data-resource-uri="file:///gone"`) == "" {
		t.Error("a subscription to a resource not listed is not shown")
	}
	for _, want := range []string{`class="resource-updated"`, "Updated ", `class="subscription-error sb-error">&lt;img`,
		`class="template-form"`, `id="template-0-var-0"`} {
		if !strings.Contains(html, want) {
			t.Errorf("resources tab lacks %s", want)
		}
	}
	tab.Capabilities, tab.Subscriptions = nil, nil
	if html := app.HTMLString(tab); strings.Contains(html, "resource-subscribe") {
		t.Error("Subscribe is offered by a server that does not declare subscriptions")
	}
}
