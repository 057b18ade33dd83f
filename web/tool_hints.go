package web

import (
	"encoding/json"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// toolHints are a tool's annotations; a nil hint was not stated.
type toolHints struct {
	ReadOnly    *bool `json:"readOnlyHint"`
	Destructive *bool `json:"destructiveHint"`
	Idempotent  *bool `json:"idempotentHint"`
	OpenWorld   *bool `json:"openWorldHint"`
}

// hintsOf reads a tool's annotations; unreadable ones state nothing.
func hintsOf(t wire.Tool) toolHints {
	var h toolHints
	json.Unmarshal(t.Annotations, &h) // unreadable annotations leave every hint unstated
	return h
}

// stated is a hint's value, or the spec's default when it was not stated.
func stated(h *bool, def bool) bool {
	if h == nil {
		return def
	}
	return *h
}

// markedDestructive reports whether the server marked the tool destructive
// (destructiveHint true, and not read-only): such a tool asks the person
// before it runs. An unannotated tool is destructive only by the spec's
// default, which its badge shows as "not stated"; asking before every call
// of every unannotated tool would teach people to click through the question.
func (h toolHints) markedDestructive() bool {
	return !stated(h.ReadOnly, false) && h.Destructive != nil && *h.Destructive
}

// hintBadge is one badge: its key, words, and whether the server stated it.
type hintBadge struct {
	key, text, title string
	stated           bool
}

// badges are what a tool's hints say, in words that show a default as a
// default ("not stated").
func (h toolHints) badges() []hintBadge {
	word := func(key string, v *bool, def bool, yes, no, title string) hintBadge {
		b := hintBadge{key: key, stated: v != nil, title: title}
		b.text = choose(stated(v, def), yes, no)
		if v == nil {
			b.text += " (not stated)"
		}
		return b
	}
	out := []hintBadge{word("read-only", h.ReadOnly, false, "read-only", "may change things",
		"Whether the tool only reads (readOnlyHint; when not stated, it may change things)")}
	if !stated(h.ReadOnly, false) {
		out = append(out,
			word("destructive", h.Destructive, true, "destructive", "not destructive",
				"Whether a change may destroy something (destructiveHint; when not stated, it may)"),
			word("idempotent", h.Idempotent, false, "idempotent", "not idempotent",
				"Whether calling again with the same arguments does nothing more (idempotentHint; when not stated, it may)"))
	}
	return append(out, word("open-world", h.OpenWorld, true, "open world", "closed world",
		"Whether the tool reaches beyond the server, such as the web (openWorldHint; when not stated, it may)"))
}

// renderHints shows a tool's hints as badges.
func renderHints(t wire.Tool) app.UI {
	badges := hintsOf(t).badges()
	return app.Ul().Class("tool-hints").Aria("label", "What the server says about this tool").Body(
		app.Range(badges).Slice(func(i int) app.UI {
			b := badges[i]
			return app.Li().Class("tool-hint", choose(b.stated, "is-stated", "is-default")).
				DataSet("hint", b.key).Title("%s", b.title).Text(b.text)
		}),
	)
}

// safeIcon returns an icon's data: URI when it is an allow-listed image
// type in base64 under the size limit; ok is false otherwise.
func safeIcon(ic wire.Icon) (string, bool) {
	rest, ok := strings.CutPrefix(ic.Src, "data:")
	if !ok || len(ic.Src) > wire.MaxIconBytes {
		return "", false
	}
	mime, data, ok := strings.Cut(rest, ";base64,")
	if !ok || !inlineImages[strings.ToLower(mime)] || !validBase64(data) {
		return "", false
	}
	return ic.Src, true
}

// renderToolIcon shows the first safe icon of a tool, or nothing.
func renderToolIcon(t wire.Tool) app.UI {
	for _, ic := range t.Icons {
		if src, ok := safeIcon(ic); ok {
			return app.Img().Class("tool-icon").Src("%s", src).Alt("").Width(24).Height(24)
		}
	}
	return app.Span().Class("tool-icon").Hidden(true)
}
