package web

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// renderMarkdown shows a model's Markdown as plain text, line breaks kept,
// until the Markdown renderer takes its place.
func renderMarkdown(src string) app.UI {
	return app.Div().Class("chat-plain").Text(src)
}
