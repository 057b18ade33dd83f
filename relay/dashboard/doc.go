// Package dashboard serves the Switchboard dashboard over HTTP.
//
// [New] returns one handler for the relay's "/" route. It serves the go-app
// page (prerendered on the server by package web), go-app's scripts and
// manifest, the files of package static under /web/, and /web/app.wasm
// precompressed: brotli or gzip as the browser accepts, else raw. Every
// answer carries a Content-Security-Policy fit for a go-app page (scripts from
// the origin only, plus 'wasm-unsafe-eval' to compile the WebAssembly).
//
// The embedded dashboard (web.EmbedPath) is served only to the sites of
// Config.EmbedOrigins, with frame-ancestors naming exactly them and no
// service worker; web.EmbedScriptPath serves static/embed.js, which host
// pages load (see embed.go).
//
// When app.wasm was not built into package static (a plain `go build`), the
// handler answers every request with 503 and says how to build it.
package dashboard
