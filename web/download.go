package web

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// downloadLinkID is the id of the hidden link of the last download. It
// stays, with its blob URL, until the next download replaces it, so that
// the browser has all the time it needs to save it.
const downloadLinkID = "result-download-link"

// downloadText saves JSON text as a file; see [downloadFile].
func downloadText(text, name string) { downloadFile(text, name, "application/json") }

// downloadFile saves text of type mime as a file through a blob URL made in
// the page, so that nothing is fetched and the text never becomes an
// attribute.
func downloadFile(text, name, mime string) {
	w := app.Window()
	doc := w.Get("document")
	if old := w.GetElementByID(downloadLinkID); old.Truthy() {
		w.Get("URL").Call("revokeObjectURL", old.Get("href"))
		old.Call("remove")
	}
	blob := w.Get("Blob").New([]any{text}, map[string]any{"type": mime})
	a := doc.Call("createElement", "a")
	a.Set("id", downloadLinkID)
	a.Set("hidden", true)
	a.Set("href", w.Get("URL").Call("createObjectURL", blob))
	a.Set("download", fileName(name))
	doc.Get("body").Call("appendChild", a)
	a.Call("click")
}

// itoa writes an int.
func itoa(n int) string { return strconv.Itoa(n) }
