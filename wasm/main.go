// Command wasm is the dashboard's WebAssembly entry point. Build it with
//
//	GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o static/dist/app.wasm ./wasm
//
// The relay embeds the result (package static) and serves it.
package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/web"
)

func main() {
	web.Routes()
	app.RunWhenOnBrowser()
}
