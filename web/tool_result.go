package web

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// maxPreview is the text a large result shows, in bytes; a result over it
// shows a preview and offers the whole as a download.
const maxPreview = 256 << 10

// renderToolResult shows a tool result block by block, its structured
// content as a tree with the relay's check against the output schema, and
// the task it ran as, if any; it offers it to copy and, when large, to
// download.
func renderToolResult(c store.Call) app.UI {
	r := c.Tool
	large := c.Size > maxPreview
	budget := maxPreview
	return app.Div().Class("call-body", "tool-result", choose(r.IsError, "is-error", "")).DataSet("size", itoa(c.Size)).Body(
		renderCallTask(c.Task),
		app.If(r.IsError, func() app.UI {
			return app.P().Class("result-error").Role("alert").Text(visibleControls(c.Error))
		}),
		app.If(large, func() app.UI {
			return app.P().Class("result-large", "sb-note").Text("The result is " + sizeText(c.Size) +
				": the page shows its first " + sizeText(maxPreview) + "; download it to see it whole.")
		}),
		app.If(len(r.Content) == 0 && len(r.StructuredContent) == 0, func() app.UI {
			return app.P().Class("result-text", "is-empty").Text("The result has no content.")
		}),
		app.Div().Class("result-blocks").Body(
			app.Range(r.Content).Slice(func(i int) app.UI {
				if r.IsError && r.Content[i].Type == wire.ContentText {
					return app.Text("") // its text is the error above
				}
				return renderBlock(c.Server, r.Content[i], &budget)
			}),
		),
		renderStructured(r),
		app.Div().Class("result-actions").Body(
			app.Button().Class("copy-result", "sb-button").Type("button").Text("Copy result").
				OnClick(func(ctx app.Context, e app.Event) { copyText(resultJSON(r)) }, app.EventScope(c.ID)),
			app.If(large, func() app.UI {
				return app.Button().Class("result-download", "sb-button").Type("button").
					Text("Download the whole result ("+sizeText(c.Size)+")").
					OnClick(func(ctx app.Context, e app.Event) { downloadText(resultJSON(r), "result-"+c.Name+".json") }, app.EventScope(c.ID))
			}),
		),
		app.Details().Class("result-details").Body(
			app.Summary().Text("Full result (JSON)"),
			app.Pre().Class("result-json", "code-block").Text(visibleControls(c.JSON)),
		),
	)
}

// renderBlock is one content block; budget is the text preview left.
func renderBlock(server string, b wire.Content, budget *int) app.UI {
	block := app.Div().Class("result-block", "block-"+string(b.Type)).DataSet("type", b.Type)
	switch b.Type {
	case wire.ContentText:
		text, cut := preview(b.Text, budget)
		return block.Body(
			app.Pre().Class("result-text", "code-block").Text(visibleControls(text)),
			app.If(cut > 0, func() app.UI {
				return app.P().Class("result-cut", "sb-note").Text("… " + sizeText(cut) + " more not shown.")
			}),
		)
	case wire.ContentImage, wire.ContentAudio:
		return block.Body(renderToolMedia(b))
	case wire.ContentResourceLink:
		return block.Body(&ResultLink{Server: server, URI: b.URI, Name: b.Name, MIMEType: b.MIMEType})
	case wire.ContentResource:
		rc, ok := store.EmbeddedResource(b)
		if !ok {
			return block.Body(app.P().Class("sb-error").Text("An embedded resource that cannot be read."))
		}
		if rc.Blob == "" {
			text, _ := preview(rc.Text, budget)
			rc.Text = text
		}
		return block.Body(renderContent(rc))
	}
	return block.Body(app.P().Class("sb-note").Text("A block of type “" + visibleControls(wire.Sanitize(string(b.Type), 40)) + "” the dashboard does not show."))
}

// renderToolMedia shows an image or plays a sound from its data when its type
// is allowed and its data is base64 under the limit; otherwise says why not.
func renderToolMedia(b wire.Content) app.UI {
	mime := baseMIME(b.MIMEType)
	size := store.BlobSize(b.Data)
	allowed := inlineImages
	if b.Type == wire.ContentAudio {
		allowed = inlineAudio
	}
	switch {
	case !allowed[mime]:
		return app.P().Class("media-refused", "sb-note").Text("A " + string(b.Type) + " of type “" + visibleControls(wire.Sanitize(mime, 60)) + "”, which the page does not play or show.")
	case size > maxInlineMedia || !validBase64(b.Data):
		return app.P().Class("media-refused", "sb-note").Text("A " + string(b.Type) + " of " + sizeText(size) + " that is too large or not valid base64.")
	case b.Type == wire.ContentImage:
		return app.Img().Class("result-image").Src("%s", dataURL(mime, b.Data)).Alt("%s", "Image from the tool ("+mime+")")
	}
	return app.Audio().Class("result-audio").Controls(true).Src("%s", dataURL(mime, b.Data)).Aria("label", "Sound from the tool ("+mime+")")
}

// renderStructured shows structuredContent as a tree, with the relay's
// check against the output schema; a mismatch is flagged, not hidden.
func renderStructured(r *wire.CallToolResult) app.UI {
	check := r.OutputCheck
	if len(r.StructuredContent) == 0 && check == nil {
		return app.Div().Class("result-structured").Hidden(true)
	}
	var tree app.UI = app.P().Class("sb-note").Text("No structured content.")
	if len(r.StructuredContent) > 0 {
		if root, ok := parseJSONTree(string(r.StructuredContent)); ok {
			tree = renderJSONTree(root)
		} else {
			budget := maxPreview
			text, cut := preview(store.IndentJSON(r.StructuredContent), &budget)
			if cut > 0 {
				text += "\n… " + sizeText(cut) + " more not shown."
			}
			tree = app.Pre().Class("code-block").Text(visibleControls(text))
		}
	}
	return app.Section().Class("result-structured").Aria("label", "Structured content").Body(
		app.H4().Class("contents-title").Text("Structured content"),
		renderOutputCheck(check),
		tree,
	)
}

// renderOutputCheck says whether the structured content matches the
// tool's output schema, and where it does not.
func renderOutputCheck(check *wire.OutputCheck) app.UI {
	switch {
	case check == nil:
		return app.Span().Class("output-check").Hidden(true)
	case check.Valid:
		return app.P().Class("output-check", "is-valid").Text("Matches the tool's output schema.")
	}
	problems := check.Problems
	return app.Div().Class("output-check", "is-mismatch").Role("alert").Body(
		app.P().Text("Does not match the tool's output schema:"),
		app.Ul().Body(app.Range(problems).Slice(func(i int) app.UI {
			pr := problems[i]
			path := pr.Path
			if path == "" {
				path = "(the whole value)"
			}
			return app.Li().Class("output-problem").DataSet("path", pr.Path).Body(
				app.Code().Text(visibleControls(path)), app.Text(": "+visibleControls(pr.Reason)))
		})),
		app.If(len(problems) == 0, func() app.UI {
			return app.P().Text("The tool gave no structured content.")
		}),
	)
}

// preview cuts text to what is left of budget, on a character boundary,
// and returns how many bytes were left out.
func preview(text string, budget *int) (string, int) {
	if len(text) <= *budget {
		*budget -= len(text)
		return text, 0
	}
	n := *budget
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	*budget = 0
	return text[:n], len(text) - n
}

// resultJSON is a whole tool result as indented JSON.
func resultJSON(r *wire.CallToolResult) string {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
