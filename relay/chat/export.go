package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// export writes a conversation as Markdown or as JSON (the conversation
// and its turns as the wire has them).
func (r *Room) export(ctx context.Context, user string, a wire.ExportChatArgs) (any, error) {
	res, err := r.get(ctx, user, wire.ChatArgs{Chat: a.Chat})
	if err != nil {
		return nil, err
	}
	got := res.(wire.GetChatResult)
	name := fileName(got.Chat.Title)
	switch a.Format {
	case wire.ExportJSON:
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			return nil, wire.NewError(wire.CodeInternal, "could not encode the conversation")
		}
		return wire.ExportChatResult{Name: name + ".json", MIME: "application/json", Body: string(b)}, nil
	case wire.ExportMarkdown:
		return wire.ExportChatResult{Name: name + ".md", MIME: "text/markdown", Body: markdown(got)}, nil
	}
	return nil, wire.NewError(wire.CodeBadRequest, "format is markdown or json")
}

// unsafeName matches what a file name should not hold.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// fileName is a download's name from a title.
func fileName(title string) string {
	n := strings.Trim(unsafeName.ReplaceAllString(title, "-"), "-.")
	if n == "" {
		n = "conversation"
	}
	return cut(n, 80)
}

// markdown is a conversation as a Markdown document: each turn's message,
// its attachments, the model's text, and its tool calls with their
// arguments and results in fenced blocks.
func markdown(c wire.GetChatResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nModel: %s · started %s\n", c.Chat.Title, c.Chat.Model, c.Chat.Created.Format("2006-01-02 15:04 MST"))
	for _, t := range c.Turns {
		fmt.Fprintf(&b, "\n## You\n\n%s\n", t.Text)
		for _, a := range t.Attachments {
			fmt.Fprintf(&b, "\n- Attached %s %s%s (server %s)\n", a.Kind, a.Name, a.URI, a.Server)
		}
		fmt.Fprintf(&b, "\n## %s\n", t.Model)
		for _, p := range t.Parts {
			switch p.Kind {
			case wire.PartText:
				fmt.Fprintf(&b, "\n%s\n", p.Text)
			case wire.PartNotice:
				fmt.Fprintf(&b, "\n> %s\n", p.Text)
			case wire.PartTool:
				writeTool(&b, p.Tool)
			}
		}
		fmt.Fprintf(&b, "\n_%s", t.Status)
		if t.Error != "" {
			fmt.Fprintf(&b, ": %s", t.Error)
		}
		fmt.Fprintf(&b, " · %d tokens in, %d out · %d ms_\n", t.Usage.In, t.Usage.Out, t.Duration)
	}
	return b.String()
}

// writeTool writes a tool call's card.
func writeTool(b *strings.Builder, c *wire.ChatToolCall) {
	if c == nil {
		return
	}
	fmt.Fprintf(b, "\n**Tool** `%s` (%s): %s\n\n", c.Tool, c.Server, c.State)
	fence(b, "json", string(c.Arguments))
	if c.Result != nil {
		text, _ := resultText(c.Result, false)
		fence(b, "", text)
	}
	if c.Error != "" {
		fmt.Fprintf(b, "Error: %s\n", c.Error)
	}
}

// fence writes s in a fenced block longer than any fence s holds.
func fence(b *strings.Builder, lang, s string) {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	fmt.Fprintf(b, "%s%s\n%s\n%s\n\n", f, lang, s, f)
}
