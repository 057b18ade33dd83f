package web

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/urlsafe"
)

// mdTag is a start tag of go-app's HTML encoding.
type mdTag struct {
	name  string
	attrs map[string]string
}

// mdTags reads the start tags of html as go-app writes them: text escaped,
// attribute values as Go quoted strings. It fails when a value holds an
// escaped double quote, which a browser would read as the value's end.
func mdTags(t *testing.T, html string) []mdTag {
	t.Helper()
	var tags []mdTag
	for i := 0; i < len(html); i++ {
		if html[i] != '<' || i+1 < len(html) && html[i+1] == '/' {
			continue
		}
		k := i + 1
		for k < len(html) && (html[k] >= 'a' && html[k] <= 'z' || html[k] >= '0' && html[k] <= '9') {
			k++
		}
		tag := mdTag{name: html[i+1 : k], attrs: map[string]string{}}
		for {
			for k < len(html) && html[k] == ' ' {
				k++
			}
			if k >= len(html) {
				t.Fatalf("unterminated <%s>:\n%s", tag.name, html)
			}
			if html[k] == '>' {
				break
			}
			start := k
			for k < len(html) && !strings.ContainsRune("= >", rune(html[k])) {
				k++
			}
			name, value := html[start:k], ""
			if k < len(html) && html[k] == '=' {
				q, err := strconv.QuotedPrefix(html[k+1:])
				if err != nil {
					t.Fatalf("<%s %s=...>: %v\n%s", tag.name, name, err, html)
				}
				if strings.Contains(q, `\"`) {
					t.Errorf("<%s %s=%s> would end the attribute early in a prerendered page", tag.name, name, q)
				}
				value, _ = strconv.Unquote(q)
				k += 1 + len(q)
			}
			tag.attrs[name] = value
		}
		tags = append(tags, tag)
		i = k
	}
	return tags
}

// mdAllowed are the elements and attributes rendered Markdown may have.
var (
	mdAllowedTags = map[string]bool{
		"div": true, "p": true, "h3": true, "h4": true, "h5": true, "h6": true, "em": true, "strong": true, "del": true,
		"code": true, "pre": true, "blockquote": true, "ul": true, "ol": true, "li": true, "hr": true, "br": true,
		"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "span": true, "button": true, "img": true,
	}
	mdAllowedAttrs = map[string]bool{
		"class": true, "title": true, "type": true, "aria-expanded": true, "aria-label": true, "role": true,
		"start": true, "src": true, "alt": true,
	}
	mdImageData = regexp.MustCompile(`^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]*={0,2}$`)
)

// renderedMD renders src and fails when the result holds an element or an
// attribute outside the allowed ones, an image from anything but checked
// data, or a link button to a URL that may not be opened.
func renderedMD(t *testing.T, src string) string {
	t.Helper()
	html := app.HTMLString(renderMarkdown(src))
	for _, tag := range mdTags(t, html) {
		if !mdAllowedTags[tag.name] {
			t.Errorf("%q renders a <%s>:\n%s", src, tag.name, html)
		}
		for name, value := range tag.attrs {
			if !mdAllowedAttrs[name] {
				t.Errorf("%q renders <%s %s=%q>", src, tag.name, name, value)
			}
		}
		if s, ok := tag.attrs["src"]; ok && (tag.name != "img" || !mdImageData.MatchString(s)) {
			t.Errorf("%q renders <%s src=%q>", src, tag.name, s)
		}
		if title, ok := tag.attrs["title"]; ok {
			if _, err := urlsafe.CheckOpenable(title); tag.attrs["class"] != "md-link" || err != nil {
				t.Errorf("%q renders <%s class=%q title=%q>", src, tag.name, tag.attrs["class"], title)
			}
		}
	}
	return html
}

// mdLinks returns the URLs of the link buttons in html.
func mdLinks(t *testing.T, html string) []string {
	var urls []string
	for _, tag := range mdTags(t, html) {
		if tag.attrs["class"] == "md-link" {
			urls = append(urls, tag.attrs["title"])
		}
	}
	return urls
}

func TestMarkdownHostileInputsRenderInert(t *testing.T) {
	for src, want := range map[string]string{
		`<script>alert(1)</script>`:                                         `&lt;script&gt;alert(1)&lt;/script&gt;`,
		`<img src=x onerror=alert(1)>`:                                      `&lt;img src=x onerror=alert(1)&gt;`,
		"text <img src=x onerror=alert(1)> more":                            `&lt;img src=x onerror=alert(1)&gt;`,
		`<a href="https://evil.example">x</a>`:                              `&lt;a href=&#34;https://evil.example&#34;&gt;`,
		`see <a href="https://evil.example">x</a>`:                          `&lt;a href=&#34;https://evil.example&#34;&gt;`,
		`<iframe src="https://evil.example"></iframe>`:                      `&lt;iframe`,
		"<style>body{display:none}</style>":                                 `&lt;style&gt;`,
		`<div onclick="alert(1)">`:                                          `&lt;div onclick=`,
		`[x](javascript:alert(1))`:                                          `javascript:alert(1)`,
		`[x](JaVaScRiPt:alert(1))`:                                          `JaVaScRiPt:alert(1)`,
		`[x](  javascript:alert(1))`:                                        `javascript:alert(1)`,
		`[x](<javascript:alert(1)>)`:                                        `javascript:alert(1)`,
		`[x](java&#115;cript:alert(1))`:                                     `javascript:alert(1)`,
		"[x][r]\n\n[r]: javascript:alert(1)":                                `javascript:alert(1)`,
		`[x](vbscript:msgbox(1))`:                                           `vbscript:msgbox(1)`,
		`[x](data:text/html;base64,PHNjcmlwdD4=)`:                           `data:text/html;base64,PHNjcmlwdD4=`,
		`[x](file:///etc/passwd)`:                                           `file:///etc/passwd`,
		`[x](/relative/path)`:                                               `/relative/path`,
		`[x](//evil.example/)`:                                              `//evil.example/`,
		`[x](http://evil.example/)`:                                         `http://evil.example/`,
		`[x](https://user:pw@evil.example/)`:                                `https://user:pw@evil.example/`,
		`<javascript:alert(1)>`:                                             `javascript:alert(1)`,
		`<JAVASCRIPT:alert(1)>`:                                             `JAVASCRIPT:alert(1)`,
		`bare javascript:alert(1) text`:                                     `javascript:alert(1)`,
		`![x](https://evil.example/track.png)`:                              `[image: x]`,
		`![x](data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=)`:                  `[image: x]`,
		`![x](data:image/png,raw)`:                                          `[image: x]`,
		`![x](data:image/png;base64,not*base64)`:                            `[image: x]`,
		`![x](javascript:alert(1))`:                                         `[image: x]`,
		"```x\" onclick=alert(1)\ncode\n```":                                `<code>code`,
		`[x](https://a.example/&quot;onmouseover=alert(1))`:                 `>x</button>`,
		`![a&quot; onerror=alert(1) b](data:image/png;base64,iVBORw0KGgo=)`: `alt="a' onerror=alert(1) b"`,
	} {
		html := renderedMD(t, src)
		if !strings.Contains(html, want) {
			t.Errorf("%q renders without %s:\n%s", src, want, html)
		}
	}
}

func TestMarkdownLinksOnlyOpenableURLs(t *testing.T) {
	html := renderedMD(t, "[docs](https://example.com/a?b=1&c=2#d) and <https://example.org/x> and https://example.net/y "+
		"and [local](http://localhost:8080/) and [quoted](https://a.example/&quot;x) and [](https://empty.example/) and [no](http://example.com/)")
	want := []string{"https://example.com/a?b=1&c=2#d", "https://example.org/x", "https://example.net/y",
		"http://localhost:8080/", "https://a.example/%22x", "https://empty.example/"}
	if got := mdLinks(t, html); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("links %q, want %q:\n%s", got, want, html)
	}
	for _, label := range []string{">docs</button>", ">https://example.org/x</button>", ">https://empty.example/</button>"} {
		if !strings.Contains(html, label) {
			t.Errorf("no button %s:\n%s", label, html)
		}
	}
	if !strings.Contains(html, `<span class="md-url">http://example.com/</span>`) {
		t.Errorf("a plain http link is not text:\n%s", html)
	}
}

func TestMarkdownLinkAsksBeforeOpening(t *testing.T) {
	closed := app.HTMLString(&mdLink{Label: "docs", URL: "https://example.com/p"})
	if strings.Contains(closed, "md-consent") {
		t.Errorf("the confirmation shows before a click:\n%s", closed)
	}
	html := app.HTMLString(&mdLink{Label: "docs", URL: "https://example.com/p", asking: true})
	for _, want := range []string{
		`<span class="md-consent-host">example.com</span>`,
		`<span class="md-consent-url">https://example.com/p</span>`,
		"md-consent-open", ">Open</button>", "md-consent-cancel", ">Cancel</button>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("confirmation lacks %s:\n%s", want, html)
		}
	}
	if strings.Contains(html, "md-consent-readable") || strings.Contains(html, "md-consent-warning") {
		t.Errorf("an ASCII host gets a second spelling or a warning:\n%s", html)
	}

	html = app.HTMLString(&mdLink{Label: "apple", URL: "https://аpple.com/", asking: true})
	for _, want := range []string{
		`<span class="md-consent-host">xn--pple-43d.com</span>`,
		`<span class="md-consent-readable">reads as аpple.com</span>`,
		"mixes Cyrillic and Latin letters",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("look-alike host: confirmation lacks %s:\n%s", want, html)
		}
	}
}

func TestMarkdownBlocks(t *testing.T) {
	for src, wants := range map[string][]string{
		"# One\n\n## Two\n\n###### Six":   {`<h3 class="md-heading md-h1">One</h3>`, `<h4 class="md-heading md-h2">Two</h4>`, `<h6 class="md-heading md-h6">Six</h6>`},
		"- a\n- b\n  - c":                 {"<ul>", "<li>a</li>", "<li>\n      b\n      <ul>", "<li>c</li>"},
		"3. three\n4. four":               {`<ol start="3">`, "<li>three</li>"},
		"1. one":                          {"<ol>\n"},
		"```go\nfunc main() {}\n```":      {`<pre class="md-code">`, `<code class="language-go">func main() {}`},
		"    indented <b>":                {"<code>indented &lt;b&gt;"},
		"| a | b |\n|---|--:|\n| 1 | 2 |": {`<table class="md-table">`, "<th>a</th>", `<th class="md-align-right">b</th>`, "<td>1</td>", `<td class="md-align-right">2</td>`},
		"> quoted":                        {"<blockquote>", "<p>quoted</p>"},
		"a\n\n---\n\nb":                   {"<hr>"},
		"*em* **strong** ~~del~~ `a<b`":   {"<em>em</em>", "<strong>strong</strong>", "<del>del</del>", `<code class="md-code-span">a&lt;b</code>`},
		"hard  \nbreak\nsoft":             {"hard\n    <br>\n    break\nsoft"},
		`\*not em\* &amp; &#x41; &bogus;`: {"*not em* &amp; A &amp;bogus;"},
		"![dot](data:image/gif;base64,R0lGODlhAQABAAAAACw=)": {`src="data:image/gif;base64,R0lGODlhAQABAAAAACw="`, `alt="dot"`, `class="md-image"`},
	} {
		html := renderedMD(t, src)
		for _, want := range wants {
			if !strings.Contains(html, want) {
				t.Errorf("%q renders without %q:\n%s", src, want, html)
			}
		}
	}
}

func TestMarkdownPartialDocuments(t *testing.T) {
	for src, want := range map[string]string{
		"```go\nfunc main() {":              `<code class="language-go">func main() {`,
		"see [the docs](https://exa":        "see [the docs](https://exa",
		"**bold and":                        "**bold and",
		"![img](data:image/png;base64,iVBO": "![img](data:image/png;base64,iVBO",
		"| a | b |\n|---|-":                 "<th>b</th>",
		"<scr":                              "&lt;scr",
	} {
		html := renderedMD(t, src)
		if !strings.Contains(html, want) {
			t.Errorf("%q renders without %q:\n%s", src, want, html)
		}
		if len(mdLinks(t, html)) != 0 {
			t.Errorf("%q renders a link", src)
		}
	}
}

func TestMarkdownCutsLongDocuments(t *testing.T) {
	src := strings.Repeat("a", mdMaxBytes-1) + "é and more"
	html := renderedMD(t, src)
	if !strings.Contains(html, `class="md-cut"`) || strings.Contains(html, "and more") {
		t.Errorf("a long document is not cut")
	}
	if !utf8.ValidString(html) {
		t.Error("the cut splits a character")
	}
	if strings.Contains(renderedMD(t, src[:mdMaxBytes-1]), "md-cut") {
		t.Error("a document under the limit is cut")
	}
}

func TestMarkdownCapsNesting(t *testing.T) {
	var lists strings.Builder
	for i := range 40 {
		lists.WriteString(strings.Repeat("  ", i) + "- level " + strconv.Itoa(i) + "\n")
	}
	for name, src := range map[string]string{
		"lists":    lists.String(),
		"quotes":   strings.Repeat("> ", mdMaxMarkers) + "deep",
		"emphasis": strings.Repeat("*a _", 2000) + "deep" + strings.Repeat("_ a*", 2000),
		"links":    strings.Repeat("[", 2000) + "deep" + strings.Repeat("](https://example.com/)", 2000),
	} {
		if mdTooComplex(src) {
			t.Errorf("%s: shown as plain text", name)
		}
		html := renderedMD(t, src)
		if !strings.Contains(html, "deep") && !strings.Contains(html, "level 39") {
			t.Errorf("%s: the innermost text is lost", name)
		}
		if depth := maxNesting(html); depth > mdMaxDepth+4 {
			t.Errorf("%s: elements nest %d deep", name, depth)
		}
	}
}

func TestMarkdownTooComplexIsPlainText(t *testing.T) {
	refs := "[a]: https://example.com/\n\n" + strings.Repeat("[a]\n", mdMaxRunLines+1)
	wide := strings.Repeat("|a", 200) + "\n" + strings.Repeat("|-", 200) + "\n" + strings.Repeat("|b\n", mdMaxCells/200)
	for name, src := range map[string]string{
		"quotes on a line":  strings.Repeat(">", mdMaxMarkers+1) + " deep",
		"lists on a line":   strings.Repeat("1. ", mdMaxMarkers+1) + "deep",
		"long paragraph":    refs,
		"wide table":        wide,
		"after inline code": "```not a fence```\n" + refs,
		"fence in a quote":  "> ```\n" + refs,
	} {
		if !mdTooComplex(src) {
			t.Errorf("%s: formatted", name)
			continue
		}
		html := renderedMD(t, src)
		if !strings.Contains(html, `class="md-plain"`) || len(mdLinks(t, html)) != 0 || strings.Contains(html, "<table") {
			t.Errorf("%s: not plain text:\n%.400s", name, html)
		}
	}
	for name, src := range map[string]string{
		"code":       "```json\n" + strings.Repeat("  [1, 2, 3],\n", mdMaxRunLines-2) + "```\n\ntext",
		"paragraphs": strings.Repeat(strings.Repeat("line\n", mdMaxRunLines)+"\n", 3),
		"quotes":     strings.Repeat(strings.Repeat("> ", mdMaxMarkers)+"quoted\n", 3),
		"table":      "| a | b |\n|---|---|\n" + strings.Repeat("| 1 | 2 |\n", 400),
	} {
		if mdTooComplex(src) {
			t.Errorf("%s: shown as plain text", name)
		}
	}
}

// maxNesting is how deep the elements of html nest.
func maxNesting(html string) int {
	depth, most := 0, 0
	for i := 0; i < len(html); i++ {
		if html[i] != '<' {
			continue
		}
		end := strings.IndexByte(html[i:], '>') + i
		switch tag := html[i+1 : end]; {
		case strings.HasPrefix(tag, "/"):
			depth--
		case strings.HasPrefix(tag, "br") || strings.HasPrefix(tag, "hr") || strings.HasPrefix(tag, "img"):
		default:
			depth++
			most = max(most, depth)
		}
	}
	return most
}

func TestMarkdownCachesParsedDocuments(t *testing.T) {
	a := parseMarkdown("cached *once*")
	if b := parseMarkdown("cached *once*"); a.root != b.root {
		t.Error("the same source is parsed again")
	}
	for i := range mdCacheEntries + 10 {
		parseMarkdown("filler " + strconv.Itoa(i))
	}
	mdCache.Lock()
	n, order := len(mdCache.docs), len(mdCache.order)
	mdCache.Unlock()
	if n > mdCacheEntries || order != n {
		t.Errorf("the cache holds %d documents (%d in order), want at most %d", n, order, mdCacheEntries)
	}
	if b := parseMarkdown("cached *once*"); a.root == b.root {
		t.Error("the oldest document stayed in a full cache")
	}
}

func TestMDText(t *testing.T) {
	for in, want := range map[string]string{
		"plain":             "plain",
		`\*\\\a`:            `*\\a`,
		"&amp;&lt;&quot;":   `&<"`,
		"&#65;&#x42;&#X43;": "ABC",
		"&#0;nul\x00":       "\ufffdnul\ufffd",
		"&bogus; &#;":       "&bogus; &#;",
		"&#12345678;":       "&#12345678;",
		"& amp;":            "& amp;",
	} {
		if got := mdText([]byte(in)); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
}

func BenchmarkRenderMarkdownStream(b *testing.B) {
	var doc strings.Builder
	for i := range 40 {
		doc.WriteString("## Part " + strconv.Itoa(i) + "\n\nSome *text* with `code`, a [link](https://example.com/" + strconv.Itoa(i) + ") and more words.\n\n")
		doc.WriteString("- one\n- two\n\n```go\nfunc f() int { return 1 }\n```\n\n")
	}
	src := doc.String()
	b.SetBytes(int64(len(src)))
	for i := 0; b.Loop(); i++ {
		// a new source each time, as while a reply streams
		renderMarkdown(src + strconv.Itoa(i))
	}
}
