package codemode

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// FuzzExecute runs any program under tight limits: Execute returns, and
// what it returns is a value or an error.
func FuzzExecute(f *testing.F) {
	for _, seed := range []string{
		`return 1`,
		`return await files.list()`,
		`for (;;) {}`,
		`const a = []; for (;;) a.push(a)`,
		`throw {toString() { throw 1 }}`,
		`return {get x() { throw new Error("getter") }}`,
		`Object.defineProperty(Object.prototype, "then", {get() { return 1 }}); return 2`,
		`return new Proxy({}, {ownKeys() { throw 1 }})`,
	} {
		f.Add(seed)
	}
	servers := fixtureServers()
	f.Fuzz(func(t *testing.T, code string) {
		res := Execute(context.Background(), servers, code, Limits{Wall: 100 * time.Millisecond, HeapBytes: 32 << 20, Calls: 10})
		if res.Error == "" && !json.Valid(res.Value) {
			t.Errorf("no error and a value that is not JSON: %q", res.Value)
		}
	})
}
