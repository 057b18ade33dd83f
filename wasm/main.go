// Command wasm is the dashboard's WebAssembly entry point. Build it with
//
//	GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o static/dist/app.wasm ./wasm
//
// The relay embeds the result (package static) and serves it.
package main

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/web"
)

// firstSnapshotWait is how long the first render waits for the relay's
// snapshot, so that it replaces the prerendered list with the same list.
const firstSnapshotWait = 1500 * time.Millisecond

func main() {
	web.Routes()
	if app.IsClient {
		web.Preconnect(firstSnapshotWait)
	}
	app.RunWhenOnBrowser()
}
