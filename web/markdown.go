package web

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/switchboard-mcp/switchboard/shared/urlsafe"
)

// Markdown from a model is untrusted. It is parsed with goldmark (GFM
// tables, strikethrough and bare URLs on) and its syntax tree is walked into
// go-app elements: no HTML string is built, so nothing in it can become
// markup. Raw HTML shows as text; a link opens only through [mdLink]'s
// confirmation, and only when [urlsafe.CheckOpenable] allows it; an image
// shows only from the data of an allowed type, never fetched.
const (
	mdMaxBytes      = 200 << 10 // the most of a document rendered; the rest is cut
	mdMaxDepth      = 16        // deeper blocks and inlines are shown as plain text
	mdMaxImageBytes = 128 << 10 // the longest data: URI shown as an image
	mdCacheEntries  = 64        // parsed documents kept
	mdCacheBytes    = 4 << 20   // and their sources' total size at most

	// Beyond these a document is shown as plain text (see mdTooComplex).
	mdMaxMarkers  = 16     // containers (> and list markers) opened on one line
	mdMaxRunLines = 2000   // lines in a row without a blank one
	mdMaxCells    = 10_000 // table cells, counted as GFM pads short rows
)

// mdImageTypes are the image types shown from data: URIs: formats that a
// browser decodes without running anything (no SVG).
var mdImageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

var mdParser = sync.OnceValue(func() parser.Parser {
	return goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify)).Parser()
})

// mdDoc is a parsed document and the source its segments point into; root
// is nil when the document is too complex to parse (see mdTooComplex).
type mdDoc struct {
	src  []byte
	root ast.Node
}

// mdCache keeps the documents parsed last, by source, so that the messages
// that no longer change are not parsed again each time one streams.
var mdCache struct {
	sync.Mutex
	docs  map[string]mdDoc
	order []string // oldest first
	size  int      // the sources' total length
}

// parseMarkdown parses src, or returns it parsed before.
func parseMarkdown(src string) mdDoc {
	mdCache.Lock()
	d, ok := mdCache.docs[src]
	mdCache.Unlock()
	if ok {
		return d
	}
	d = mdDoc{src: []byte(src)}
	if !mdTooComplex(src) {
		d.root = mdParser().Parse(text.NewReader(d.src))
	}
	mdCache.Lock()
	defer mdCache.Unlock()
	if _, ok := mdCache.docs[src]; ok {
		return d
	}
	if mdCache.docs == nil {
		mdCache.docs = map[string]mdDoc{}
	}
	mdCache.docs[src] = d
	mdCache.order = append(mdCache.order, src)
	mdCache.size += len(src)
	for len(mdCache.order) > mdCacheEntries || mdCache.size > mdCacheBytes {
		old := mdCache.order[0]
		mdCache.order = mdCache.order[1:]
		mdCache.size -= len(old)
		delete(mdCache.docs, old)
	}
	return d
}

// renderMarkdown renders untrusted Markdown as go-app elements.
func renderMarkdown(src string) app.UI {
	cut := len(src) > mdMaxBytes
	if cut {
		n := mdMaxBytes
		for n > 0 && !utf8.RuneStart(src[n]) {
			n--
		}
		src = src[:n]
	}
	var body []app.UI
	if d := parseMarkdown(src); d.root != nil {
		body = mdRenderer{src: d.src}.blocks(nil, d.root, 0)
	} else {
		body = []app.UI{
			app.P().Class("md-note").Text("(shown as plain text: too complex to format)"),
			app.Div().Class("md-plain").Text(src),
		}
	}
	if cut {
		body = append(body, app.P().Class("md-cut").Text("(cut: only the first "+strconv.Itoa(mdMaxBytes>>10)+" KB are shown)"))
	}
	return app.Div().Class("md").Body(body...)
}

// mdTooComplex reports whether src holds what makes goldmark slow (its
// work grows with the square of the containers opened on a line, and of a
// paragraph's lines once there are thousands) or its output huge (a
// table's rows are padded to the header's columns): more than mdMaxMarkers
// containers opened on a line, more than mdMaxRunLines lines without a
// blank one, or tables of more than mdMaxCells cells. It reads each line
// once and, since it does not tell code from text, errs on the side of
// complex.
func mdTooComplex(src string) bool {
	run, columns, cells := 0, 0, 0
	for line := range strings.Lines(src) {
		rest, markers := mdContainers(line)
		if markers > mdMaxMarkers {
			return true
		}
		rest = strings.TrimRight(rest, " \t\r\n")
		if rest == "" {
			run, columns = 0, 0
			continue
		}
		if run++; run > mdMaxRunLines {
			return true
		}
		if columns == 0 && strings.Contains(rest, "-") && strings.Trim(rest, "|:- \t") == "" {
			columns = strings.Count(rest, "|") + 1
		}
		if cells += columns; cells > mdMaxCells {
			return true
		}
	}
	return false
}

// mdContainers strips the block quote and list markers that start line and
// counts them.
func mdContainers(line string) (string, int) {
	for n := 0; ; n++ {
		line = strings.TrimLeft(line, " \t")
		digits := 0
		for digits < len(line) && digits < 9 && line[digits] >= '0' && line[digits] <= '9' {
			digits++
		}
		switch {
		case strings.HasPrefix(line, ">"):
			line = line[1:]
		case len(line) >= 2 && strings.IndexByte("-+*", line[0]) >= 0 && (line[1] == ' ' || line[1] == '\t'):
			line = line[2:]
		case digits > 0 && len(line) > digits+1 && (line[digits] == '.' || line[digits] == ')') &&
			(line[digits+1] == ' ' || line[digits+1] == '\t'):
			line = line[digits+2:]
		default:
			return line, n
		}
	}
}

// mdRenderer walks a parsed document into elements.
type mdRenderer struct {
	src []byte
}

// blocks appends the elements of parent's child blocks to out.
func (r mdRenderer) blocks(out []app.UI, parent ast.Node, depth int) []app.UI {
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		out = r.block(out, n, depth+1)
	}
	return out
}

// block appends the elements of one block to out.
func (r mdRenderer) block(out []app.UI, n ast.Node, depth int) []app.UI {
	if depth > mdMaxDepth {
		return append(out, app.Div().Class("md-deep").Text(r.plain(n)))
	}
	switch n := n.(type) {
	case *ast.Paragraph:
		return append(out, app.P().Body(r.inlines(n, depth)...))
	case *ast.TextBlock: // the text of a tight list's item
		return append(out, r.inlines(n, depth)...)
	case *ast.Heading:
		return append(out, mdHeading(n.Level, r.inlines(n, depth)))
	case *ast.ThematicBreak:
		return append(out, app.Hr())
	case *ast.FencedCodeBlock:
		return append(out, r.code(n, mdLanguage(mdText(n.Language(r.src)))))
	case *ast.CodeBlock:
		return append(out, r.code(n, ""))
	case *ast.Blockquote:
		return append(out, app.Blockquote().Body(r.blocks(nil, n, depth)...))
	case *ast.List:
		return append(out, r.list(n, depth))
	case *ast.HTMLBlock:
		var b strings.Builder
		r.lines(&b, n)
		if n.HasClosure() {
			b.Write(n.ClosureLine.Value(r.src))
		}
		return append(out, app.Div().Class("md-raw").Text(b.String()))
	case *east.Table:
		return append(out, r.table(n, depth))
	}
	return append(out, app.P().Text(r.plain(n)))
}

// mdHeading is a heading two levels down (# is h3), so that a message's
// headings stay below the page's; md-hN keeps the level it was written with.
func mdHeading(level int, body []app.UI) app.UI {
	class := "md-h" + strconv.Itoa(level)
	switch level {
	case 1:
		return app.H3().Class("md-heading", class).Body(body...)
	case 2:
		return app.H4().Class("md-heading", class).Body(body...)
	case 3:
		return app.H5().Class("md-heading", class).Body(body...)
	}
	return app.H6().Class("md-heading", class).Body(body...)
}

// code is a code block; lang, already checked, becomes a language-* class.
func (r mdRenderer) code(n ast.Node, lang string) app.UI {
	var b strings.Builder
	r.lines(&b, n)
	code := app.Code().Text(b.String())
	if lang != "" {
		code = code.Class("language-" + lang)
	}
	return app.Pre().Class("md-code").Body(code)
}

// mdLanguage returns a code block's language when it is short and made of
// letters, digits and -_+.# only, so that it is safe as a class; else "".
func mdLanguage(lang string) string {
	if len(lang) > 32 {
		return ""
	}
	for i := 0; i < len(lang); i++ {
		c := lang[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_+.#", c) >= 0) {
			return ""
		}
	}
	return lang
}

// lines writes the source lines of a block.
func (r mdRenderer) lines(b *strings.Builder, n ast.Node) {
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(r.src))
	}
}

// list is an ordered list, from its start number, or a bullet list.
func (r mdRenderer) list(n *ast.List, depth int) app.UI {
	var items []app.UI
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		items = append(items, app.Li().Body(r.blocks(nil, item, depth+1)...))
	}
	if !n.IsOrdered() {
		return app.Ul().Body(items...)
	}
	ol := app.Ol()
	if n.Start != 1 {
		ol = ol.Start(n.Start)
	}
	return ol.Body(items...)
}

// table is a GFM table in a box that scrolls sideways when too wide.
func (r mdRenderer) table(n *east.Table, depth int) app.UI {
	var head, body []app.UI
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		_, isHead := row.(*east.TableHeader)
		var cells []app.UI
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			var class string
			if cell, ok := c.(*east.TableCell); ok && cell.Alignment != east.AlignNone {
				class = "md-align-" + cell.Alignment.String()
			}
			if isHead {
				cells = append(cells, app.Th().Class(class).Body(r.inlines(c, depth+1)...))
			} else {
				cells = append(cells, app.Td().Class(class).Body(r.inlines(c, depth+1)...))
			}
		}
		if isHead {
			head = append(head, app.Tr().Body(cells...))
		} else {
			body = append(body, app.Tr().Body(cells...))
		}
	}
	return app.Div().Class("md-table-wrap").Body(
		app.Table().Class("md-table").Body(app.THead().Body(head...), app.TBody().Body(body...)),
	)
}

// inlines returns the elements of parent's inline children, adjacent text
// joined into one text node.
func (r mdRenderer) inlines(parent ast.Node, depth int) []app.UI {
	var out []app.UI
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			out = append(out, app.Text(text.String()))
			text.Reset()
		}
	}
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Text:
			text.WriteString(r.textOf(n))
			switch {
			case n.HardLineBreak():
				flush()
				out = append(out, app.Br())
			case n.SoftLineBreak():
				text.WriteByte('\n')
			}
		case *ast.String:
			text.WriteString(r.stringOf(n))
		default:
			flush()
			out = append(out, r.inline(n, depth+1))
		}
	}
	flush()
	return out
}

// inline is the element of one inline node other than text.
func (r mdRenderer) inline(n ast.Node, depth int) app.UI {
	if depth > mdMaxDepth {
		return app.Span().Class("md-deep").Text(r.plain(n))
	}
	switch n := n.(type) {
	case *ast.Emphasis:
		if n.Level >= 2 {
			return app.Strong().Body(r.inlines(n, depth)...)
		}
		return app.Em().Body(r.inlines(n, depth)...)
	case *east.Strikethrough:
		return app.Del().Body(r.inlines(n, depth)...)
	case *ast.CodeSpan:
		return app.Code().Class("md-code-span").Text(strings.ReplaceAll(r.plain(n), "\n", " "))
	case *ast.Link:
		return mdLinkOf(r.plain(n), mdText(n.Destination), false)
	case *ast.AutoLink:
		return mdLinkOf(string(n.Label(r.src)), string(n.URL(r.src)), true)
	case *ast.Image:
		return r.image(n)
	case *ast.RawHTML:
		var b strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b.Write(seg.Value(r.src))
		}
		return app.Span().Class("md-raw").Text(b.String())
	}
	return app.Span().Text(r.plain(n))
}

// image shows an image from a data: URI of an allowed type, in base64 and
// at most mdMaxImageBytes long; any other image is named by its alt text and
// never fetched.
func (r mdRenderer) image(n *ast.Image) app.UI {
	alt := r.plain(n)
	if src, ok := mdImageSrc(string(n.Destination)); ok {
		return app.Img().Class("md-image").Src("%s", src).Alt("%s", attrText(alt))
	}
	return app.Span().Class("md-image-blocked").Text("[image: " + alt + "]")
}

// mdImageSrc returns dest when it may be shown as an image.
func mdImageSrc(dest string) (string, bool) {
	rest, ok := strings.CutPrefix(dest, "data:")
	if !ok || len(dest) > mdMaxImageBytes {
		return "", false
	}
	mime, data, ok := strings.Cut(rest, ";base64,")
	if !ok || !mdImageTypes[strings.ToLower(mime)] || !validBase64(data) {
		return "", false
	}
	return dest, true
}

// attrText is text made safe for an attribute of a prerendered page: go-app
// writes attribute values with strconv.Quote, which escapes a double quote
// as \" where HTML needs &quot; (the relay's prerender does the same to the
// state it renders), so double quotes become single ones.
func attrText(s string) string {
	return strings.ReplaceAll(s, `"`, "'")
}

// mdLinkOf is a link that opens through [mdLink] when its URL may be
// opened, and its label and URL as text otherwise. auto is an autolink,
// whose label is its URL. A double quote in the URL is percent-encoded, as
// the browser would, so that it is safe in an attribute.
func mdLinkOf(label, url string, auto bool) app.UI {
	url = strings.ReplaceAll(url, `"`, "%22")
	if _, err := urlsafe.CheckOpenable(url); err == nil {
		if strings.TrimSpace(label) == "" {
			label = url
		}
		return &mdLink{Label: label, URL: url}
	}
	if auto || url == "" {
		return app.Span().Class("md-link-inert").Text(visibleControls(label))
	}
	return app.Span().Class("md-link-inert").Body(
		app.Text(label+" "),
		app.Span().Class("md-url").Text(visibleControls(url)),
	)
}

// textOf is the text of a Text node.
func (r mdRenderer) textOf(n *ast.Text) string {
	if n.IsRaw() {
		return string(n.Value(r.src))
	}
	return mdText(n.Value(r.src))
}

// stringOf is the text of a String node.
func (r mdRenderer) stringOf(n *ast.String) string {
	if n.IsRaw() || n.IsCode() {
		return string(n.Value)
	}
	return mdText(n.Value)
}

// plain is the text of n and everything under it, without formatting: for
// link labels, alt text, code spans and what is nested too deep.
func (r mdRenderer) plain(root ast.Node) string {
	var b strings.Builder
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			if n.Type() == ast.TypeBlock && n.NextSibling() != nil {
				b.WriteByte('\n')
			}
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Text:
			b.WriteString(r.textOf(n))
			if n.SoftLineBreak() || n.HardLineBreak() {
				b.WriteByte('\n')
			}
		case *ast.String:
			b.WriteString(r.stringOf(n))
		case *ast.AutoLink:
			b.Write(n.Label(r.src))
		case *ast.RawHTML:
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				b.Write(seg.Value(r.src))
			}
		default:
			if n.Type() == ast.TypeBlock && !n.HasChildren() {
				r.lines(&b, n)
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// mdText is the text a run of Markdown source stands for: backslash
// escapes and entity and numeric references resolved, NUL as U+FFFD, as
// goldmark's HTML writer reads it (without escaping it for HTML).
func mdText(src []byte) string {
	if !bytes.ContainsAny(src, "\\&\x00") {
		return string(src)
	}
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\\' && i+1 < len(src) && util.IsPunct(src[i+1]):
			i++
			b.WriteByte(src[i])
		case c == 0:
			b.WriteRune(utf8.RuneError)
		case c == '&':
			if s, n := mdReference(src[i:]); n > 0 {
				b.WriteString(s)
				i += n - 1
			} else {
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// mdReference reads the entity (&amp;) or numeric (&#38; &#x26;) reference
// that s starts with: its text and length, or a length of 0.
func mdReference(s []byte) (string, int) {
	end := bytes.IndexByte(s, ';')
	if end < 2 || end > 40 {
		return "", 0
	}
	name := s[1:end]
	if name[0] != '#' {
		for _, c := range name {
			if !util.IsAlphaNumeric(c) {
				return "", 0
			}
		}
		e, ok := util.LookUpHTML5EntityByName(string(name))
		if !ok {
			return "", 0
		}
		return string(e.Characters), end + 1
	}
	digits, base, most := name[1:], 10, 7
	if len(digits) > 0 && digits[0]|0x20 == 'x' {
		digits, base, most = digits[1:], 16, 6
	}
	if len(digits) == 0 || len(digits) > most {
		return "", 0
	}
	v, err := strconv.ParseUint(string(digits), base, 32)
	if err != nil {
		return "", 0
	}
	return string(util.ToValidRune(rune(v))), end + 1
}

// renderAddress shows where url leads before it opens, after lead: its
// host large, in punycode and as it reads, warnings about look-alike
// names, and the whole address. url has passed [urlsafe.CheckOpenable].
func renderAddress(lead, url string) app.UI {
	host, _ := urlsafe.CheckOpenable(url)
	ascii, readable := urlsafe.HostForms(host)
	warnings := urlsafe.HostWarnings(host)
	return app.Span().Class("md-consent-address").Body(
		app.Span().Class("md-consent-hosts").Body(
			app.If(lead != "", func() app.UI { return app.Text(lead) }),
			app.Span().Class("md-consent-host").Text(ascii),
			app.If(readable != ascii, func() app.UI {
				return app.Span().Class("md-consent-readable").Text("reads as " + readable)
			}),
		),
		app.Range(warnings).Slice(func(i int) app.UI {
			return app.Span().Class("md-consent-warning").Text("Check the address: " + warnings[i] + ".")
		}),
		app.Span().Class("md-consent-url").Text(url),
	)
}

// mdLink is a link of rendered Markdown: its text as a button that, when
// clicked, shows in place where it leads (the host large, in punycode and
// as it reads, warnings about look-alike names, the whole address) and
// opens it only on Open, as [openExternal] does. URL has passed
// [urlsafe.CheckOpenable].
type mdLink struct {
	app.Compo

	Label, URL string

	asking bool // the confirmation is shown
}

// Render implements app.Composer.
func (l *mdLink) Render() app.UI {
	return app.Span().Class("md-link-wrap").Body(
		app.Button().Type("button").Class("md-link").Title("%s", l.URL).
			Aria("expanded", l.asking).Text(l.Label).
			OnClick(func(ctx app.Context, e app.Event) { l.asking = !l.asking }),
		app.If(l.asking, l.renderConsent),
	)
}

// renderConsent asks before the link opens.
func (l *mdLink) renderConsent() app.UI {
	return app.Span().Class("md-consent").Role("group").Aria("label", "Open this link?").Body(
		renderAddress("", l.URL),
		app.Span().Class("md-consent-actions").Body(
			app.Button().Type("button").Class("md-consent-open", "sb-button", "is-primary").Text("Open").
				OnClick(func(ctx app.Context, e app.Event) {
					if openExternal(l.URL) {
						l.asking = false
					}
				}),
			app.Button().Type("button").Class("md-consent-cancel", "sb-button", "is-quiet").Text("Cancel").
				OnClick(func(ctx app.Context, e app.Event) { l.asking = false }),
		),
	)
}
