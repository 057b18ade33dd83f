package web

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// copyText puts text on the clipboard, when the browser offers one; a
// refusal leaves the text selectable where it shows.
func copyText(text string) {
	if clip := app.Window().Get("navigator").Get("clipboard"); clip.Truthy() {
		clip.Call("writeText", text)
	}
}
