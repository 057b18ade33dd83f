package codemode

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// FuzzExecute runs any program under tight limits: Execute returns, and
// what it returns is a value or an error, its value JSON either way. Its seeds are in
// testdata/fuzz/FuzzExecute.
func FuzzExecute(f *testing.F) {
	servers := fixtureServers()
	f.Fuzz(func(t *testing.T, code string) {
		res := Execute(context.Background(), servers, code, Limits{Wall: 100 * time.Millisecond, HeapBytes: 32 << 20, Calls: 10})
		if !json.Valid(res.Value) {
			t.Errorf("a value that is not JSON: %q (error %q)", res.Value, res.Error)
		}
	})
}
