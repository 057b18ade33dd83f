package dashboard

import (
	"fmt"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// BenchmarkPrerenderThousandTools prerenders the page of a person whose one
// server has a thousand tools, shown in the detail. Prerenders run one at a
// time, so this is also how long one delays another's.
func BenchmarkPrerenderThousandTools(b *testing.B) {
	srv := wire.Server{ID: "s1", Name: "big", URL: "http://127.0.0.1:3001/mcp", State: wire.StateReady}
	for i := range 1000 {
		srv.Tools = append(srv.Tools, wire.Tool{
			Name:        fmt.Sprintf("tool_%04d", i),
			Description: "Looks up a record by id and returns its fields as text.",
			InputSchema: []byte(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
		})
	}
	h, err := New(Config{Static: builtFS("WASM"), State: signedIn(srv)})
	if err != nil {
		b.Fatal(err)
	}
	var size int
	for b.Loop() {
		w := get(h, "/", "Authorization", "Bearer ok", "Accept-Encoding", "gzip")
		if w.Code != 200 {
			b.Fatalf("status %d", w.Code)
		}
		size = w.Body.Len()
	}
	b.ReportMetric(float64(size), "gzip-page-bytes")
}
