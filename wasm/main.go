// Command wasm is the dashboard's WebAssembly entry point. Build it with
//
//	GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o static/dist/app.wasm ./wasm
//
// The relay embeds the result (package static) and serves it.
package main

import (
	"runtime/debug"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/web"
)

// firstSnapshotWait is how long the first render waits for the relay's
// snapshot, so that it replaces the prerendered list with the same list.
const firstSnapshotWait = 1500 * time.Millisecond

// gcPercent is the dashboard's GOGC. Its live heap is small (about 5 MB
// with 100 results shown), so at Go's default of 100 it collected at
// nearly every click (358 times in 420 clicks of make bench's click
// figure), and in a browser the collector runs on the page's one thread:
// each collection is a pause a person can feel. At 400 it collected 56
// times, for 11 MB more memory (22 MB in all).
const gcPercent = 400

func main() {
	debug.SetGCPercent(gcPercent)
	web.Routes()
	if app.IsClient {
		web.Preconnect(firstSnapshotWait)
	}
	app.RunWhenOnBrowser()
}
