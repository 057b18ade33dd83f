package web

import (
	"encoding/json"
	"path"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// Limits on what a content shows inline.
const (
	// maxInlineMedia caps an image or a sound played from its data, in bytes.
	maxInlineMedia = 2 << 20
	// maxFileName caps the name a download is saved under, in bytes.
	maxFileName = 80
)

// inlineImages and inlineAudio are the types shown or played from a blob:
// formats a browser decodes without running anything (no SVG, whose
// scripts and links an image could carry).
var (
	inlineImages = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/avif": true}
	inlineAudio  = map[string]bool{
		"audio/wav": true, "audio/x-wav": true, "audio/wave": true, "audio/mpeg": true, "audio/ogg": true,
		"audio/webm": true, "audio/flac": true, "audio/mp4": true, "audio/aac": true,
	}
)

// renderContents shows resource contents by type: text as text, JSON
// pretty-printed and collapsible, allowed images and sounds inline, other
// blobs as a download.
func renderContents(items []wire.ResourceContents) app.UI {
	return app.Div().Class("contents").Body(
		app.Range(items).Slice(func(i int) app.UI { return renderContent(items[i]) }),
	)
}

// renderContent is one resource content with its URI and type.
func renderContent(c wire.ResourceContents) app.UI {
	mime := baseMIME(c.MIMEType)
	kind, body := contentBody(c, mime)
	return app.Div().Class("content", "content-"+kind).DataSet("uri", c.URI).DataSet("kind", kind).Body(
		app.Div().Class("content-head").Body(
			app.Span().Class("content-uri").Text(c.URI),
			app.Span().Class("content-meta", "item-meta").Text(contentMeta(c, mime)),
		),
		body,
	)
}

// contentBody returns what kind of content c is and how it shows.
func contentBody(c wire.ResourceContents, mime string) (string, app.UI) {
	if c.Blob == "" {
		if isJSONType(mime) {
			if tree, ok := parseJSONTree(c.Text); ok {
				return "json", renderJSONTree(tree)
			}
			if json.Valid([]byte(c.Text)) {
				return "json", app.Pre().Class("content-text", "code-block").Text(store.IndentJSON(json.RawMessage(c.Text)))
			}
		}
		if c.Text == "" {
			return "text", app.P().Class("content-text", "is-empty").Text("No text.")
		}
		return "text", app.Pre().Class("content-text", "code-block").Text(visibleControls(c.Text))
	}
	size := store.BlobSize(c.Blob)
	valid := validBase64(c.Blob)
	switch {
	case valid && inlineImages[mime] && size <= maxInlineMedia:
		return "image", app.Img().Class("content-image").Src("%s", dataURL(mime, c.Blob)).
			Alt("%s", "Image from "+c.URI)
	case valid && inlineAudio[mime] && size <= maxInlineMedia:
		return "audio", app.Audio().Class("content-audio").Controls(true).Src("%s", dataURL(mime, c.Blob)).
			Aria("label", "Sound from "+c.URI)
	case valid:
		name := fileName(c.URI)
		return "download", app.A().Class("content-download", "sb-button").
			Href("%s", dataURL("application/octet-stream", c.Blob)).Download("%s", name).
			Text("Download " + name + " (" + sizeText(size) + ")")
	default:
		return "invalid", app.P().Class("content-invalid", "sb-error").Text("The server sent binary content that is not valid base64.")
	}
}

// contentMeta is a content's small print: its type and, for a blob, its size.
func contentMeta(c wire.ResourceContents, mime string) string {
	if mime == "" {
		mime = "no type given"
	}
	if c.Blob != "" {
		return mime + ", " + sizeText(store.BlobSize(c.Blob))
	}
	return mime
}

// baseMIME is a MIME type without its parameters, in lower case.
func baseMIME(mime string) string {
	if i := strings.IndexByte(mime, ';'); i >= 0 {
		mime = mime[:i]
	}
	return strings.ToLower(strings.TrimSpace(mime))
}

// isJSONType reports whether a base MIME type is JSON.
func isJSONType(mime string) bool {
	return mime == "application/json" || mime == "text/json" || strings.HasSuffix(mime, "+json")
}

// validBase64 reports whether s is padded standard base64, so that a data:
// URL built from it holds nothing else. It scans rather than decodes: it
// runs on every render of a blob of up to megabytes.
func validBase64(s string) bool {
	if len(s)%4 != 0 {
		return false
	}
	body := strings.TrimSuffix(strings.TrimSuffix(s, "="), "=")
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/') {
			return false
		}
	}
	return true
}

// dataURL is a data: URL of a blob. mime comes from an allow-list or is
// application/octet-stream, and blob is checked base64.
func dataURL(mime, blob string) string { return "data:" + mime + ";base64," + blob }

// fileName is a safe name to save a resource under: the last segment of its
// URI, keeping letters, digits, dot, dash and underscore, without leading
// dots; "resource.bin" when nothing is left.
func fileName(uri string) string {
	if i := strings.IndexAny(uri, "?#"); i >= 0 {
		uri = uri[:i]
	}
	base := path.Base(strings.TrimRight(uri, "/"))
	var b strings.Builder
	for _, r := range base {
		switch {
		case b.Len() >= maxFileName:
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == '.' && b.Len() > 0:
			b.WriteRune(r)
		}
	}
	name := strings.TrimRight(b.String(), ".")
	if name == "" {
		return "resource.bin"
	}
	return name
}

// sizeText is a byte count for a person.
func sizeText(n int) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KB"
	default:
		return strconv.Itoa(n) + " bytes"
	}
}

// renderCallContents is the body of a finished call whose result holds
// resource contents: a read shows them by type; a prompt or tool result
// shows its text, then its embedded resources. The whole result stays
// available as JSON, closed, as blobs make it long.
func renderCallContents(c store.Call) app.UI {
	return app.Div().Class("call-body").Body(
		app.If(c.Kind != wire.CallKindResource && c.Text != "", func() app.UI {
			return app.Pre().Class("result-text", "code-block").Text(c.Text)
		}),
		app.If(c.Kind != wire.CallKindResource, func() app.UI {
			return app.H4().Class("contents-title").Text("Embedded resources")
		}),
		renderContents(c.Contents),
		app.Details().Class("result-details").Body(
			app.Summary().Text("Full result (JSON)"),
			app.Pre().Class("result-json", "code-block").Text(c.JSON),
		),
	)
}
