package web

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// What a sampling request shows: its messages, block by block, and its
// parameters. Everything is the server's and rendered as text; an image or
// a sound plays from its data only when its media type is on the allow-list
// and its data is base64.

// renderSamplingMessages shows the conversation so far.
func renderSamplingMessages(msgs []wire.SamplingMessage) app.UI {
	return app.Ol().Class("sampling-messages").Aria("label", "Conversation").Body(
		app.Range(msgs).Slice(func(i int) app.UI {
			m := msgs[i]
			return app.Li().Class("sampling-message").DataSet("role", m.Role).Body(
				app.P().Class("sampling-role").Text(roleLabel(m.Role)),
				app.Range(m.Content).Slice(func(j int) app.UI { return renderSamplingBlock(m.Content[j]) }),
			)
		}),
	)
}

// roleLabel names a message's author.
func roleLabel(role wire.Role) string {
	switch role {
	case wire.RoleUser:
		return "User"
	case wire.RoleAssistant:
		return "Assistant"
	}
	return "Role " + strconv.Quote(string(role))
}

// renderSamplingBlock shows one content block.
func renderSamplingBlock(c wire.SamplingContent) app.UI {
	switch c.Type {
	case wire.ContentText:
		return app.Div().Class("sampling-block", "sampling-text").Text(c.Text)
	case wire.ContentImage, wire.ContentAudio:
		return renderMedia(c)
	case wire.ContentToolUse:
		return app.Div().Class("sampling-block", "sampling-tool-use").Body(
			app.P().Class("sampling-block-title").Text("Tool call: "+c.Name+" (id "+c.ID+")"),
			app.Pre().Class("sampling-json").Text(indentJSON(c.Input)),
		)
	case wire.ContentToolResult:
		title := "Tool result for " + c.ToolUseID
		if c.IsError {
			title += " (the tool reported an error)"
		}
		return app.Div().Class("sampling-block", "sampling-tool-result").DataSet("error", c.IsError).Body(
			app.P().Class("sampling-block-title").Text(title),
			app.Range(c.Content).Slice(func(i int) app.UI { return renderSamplingBlock(c.Content[i]) }),
			app.If(len(c.StructuredContent) > 0, func() app.UI {
				return app.Pre().Class("sampling-json").Text(indentJSON(c.StructuredContent))
			}),
		)
	}
	return app.Div().Class("sampling-block", "sampling-unknown").Text("A block of type " + strconv.Quote(string(c.Type)) + " that Switchboard does not show.")
}

// renderMedia plays an image or sound from its data, or says why not.
func renderMedia(c wire.SamplingContent) app.UI {
	label := string(c.Type) + " (" + c.MIMEType + ")"
	if !wire.RenderableMedia(c.Type, c.MIMEType) {
		return app.Div().Class("sampling-block", "sampling-media-refused").
			Text("An " + label + " that Switchboard does not display: only common image and audio types are shown.")
	}
	if _, err := base64.StdEncoding.DecodeString(c.Data); err != nil {
		return app.Div().Class("sampling-block", "sampling-media-refused").Text("An " + label + " whose data is damaged.")
	}
	src := "data:" + c.MIMEType + ";base64," + c.Data
	if c.Type == wire.ContentImage {
		return app.Figure().Class("sampling-block", "sampling-image").Body(
			app.Img().Src(src).Alt("Image sent by the server (" + c.MIMEType + ")"),
		)
	}
	return app.Div().Class("sampling-block", "sampling-audio").Body(
		app.Audio().Controls(true).Src(src).Aria("label", "Audio sent by the server ("+c.MIMEType+")"),
	)
}

// renderSamplingParams shows the request's parameters and the tools offered.
func renderSamplingParams(r *wire.SamplingRequest) app.UI {
	rows := []app.UI{infoRow("Max tokens", strconv.FormatInt(r.MaxTokens, 10))}
	if r.IncludeContext != "" {
		rows = append(rows, infoRow("Include context", r.IncludeContext))
	}
	if r.Temperature != 0 {
		rows = append(rows, infoRow("Temperature", strconv.FormatFloat(r.Temperature, 'g', -1, 64)))
	}
	if len(r.StopSequences) > 0 {
		rows = append(rows, infoRow("Stop sequences", quotedList(r.StopSequences)))
	}
	if p := r.ModelPreferences; p != nil {
		if len(p.Hints) > 0 {
			rows = append(rows, infoRow("Model hints", quotedList(p.Hints)))
		}
		rows = append(rows, infoRow("Priorities", "cost "+priority(p.CostPriority)+", speed "+priority(p.SpeedPriority)+", intelligence "+priority(p.IntelligencePriority)))
	}
	if len(r.Tools) > 0 {
		rows = append(rows, infoRow("Tool choice", orDefault(string(r.ToolChoice), string(wire.ToolChoiceAuto))))
	}
	return app.Div().Class("sampling-params").Body(
		app.If(r.SystemPrompt != "", func() app.UI {
			return app.Div().Class("sampling-system").Body(
				app.P().Class("field-label").Text("System prompt"),
				app.Div().Class("sampling-text").Text(r.SystemPrompt),
			)
		}),
		app.Dl().Class("info-list", "sampling-settings").Body(rows...),
		app.If(len(r.Tools) > 0, func() app.UI {
			return app.Details().Class("sampling-tools").Body(
				app.Summary().Text(countWords(len(r.Tools), "tool")+" offered"),
				app.Ul().Body(app.Range(r.Tools).Slice(func(i int) app.UI {
					t := r.Tools[i]
					return app.Li().Class("sampling-tool").Body(
						app.P().Class("sampling-tool-name").Text(t.Name),
						hiddenIf(app.P().Class("sampling-tool-description"), t.Description == "").Text(t.Description),
						app.Pre().Class("sampling-json").Text(indentJSON(t.InputSchema)),
					)
				})),
			)
		}),
	)
}

func quotedList(items []string) string {
	out := ""
	for i, s := range items {
		if i > 0 {
			out += ", "
		}
		out += strconv.Quote(s)
	}
	return out
}

func priority(p float64) string { return strconv.FormatFloat(p, 'g', 2, 64) }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// indentJSON is raw indented, or as it is when it is not JSON.
func indentJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if len(raw) == 0 {
		return "{}"
	}
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}
