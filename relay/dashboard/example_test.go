package dashboard_test

import (
	"log"
	"net/http"

	"github.com/switchboard-mcp/switchboard/relay/dashboard"
)

// The dashboard takes the relay's "/" route; the relay's own routes (the
// WebSocket at /ws, /login) are more specific and win.
func ExampleNew() {
	dash, err := dashboard.New(dashboard.Config{FrameAncestors: "'self' https://intranet.example"})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", dash)
	_ = http.ListenAndServe("127.0.0.1:8080", mux)
}
