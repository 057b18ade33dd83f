// Package static holds the dashboard's files: the stylesheet, the icons and,
// under dist/, the build outputs that `make wasm` writes: app.wasm, its .br
// and .gz forms, and the checksum tying them together. A plain `go build` without that step embeds an empty
// dist/, and the relay answers that the dashboard is not built.
package static

import (
	"embed"
	"io/fs"
)

// Paths inside [FS].
const (
	Stylesheet = "switchboard.css"
	IconSVG    = "icons/icon.svg"
	Icon       = "icons/icon-192.png"
	IconLarge  = "icons/icon-512.png"
	Wasm       = "dist/app.wasm"
	WasmBrotli = "dist/app.wasm.br"
	WasmGzip   = "dist/app.wasm.gz"
	// WasmSum holds the hex SHA-256 of the app.wasm the .br and .gz files
	// were made from, so a stale pair is never served with a newer app.wasm.
	WasmSum = "dist/app.wasm.sha256"

	// EmbedScript is the script a host page loads to embed the dashboard.
	EmbedScript = "embed.js"
)

//go:embed switchboard.css embed.js icons all:dist
var files embed.FS

// FS returns the embedded files, under the paths above.
func FS() fs.FS { return files }
