package mcpwire

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestLogEntryIsStampedAndSanitized(t *testing.T) {
	before := time.Now()
	e := LogEntry(wire.LevelWarning, &mcp.LoggingMessageParams{Level: "warning", Logger: "fix\x1bture", Data: "hi at warning"})
	if e.Level != wire.LevelWarning || e.Logger != "fix ture" || string(e.Data) != `"hi at warning"` || e.Time.Before(before) {
		t.Errorf("entry %+v", e)
	}
}

func TestLogDataIsCapped(t *testing.T) {
	long := make([]byte, 3*wire.MaxLogData)
	for i := range long {
		long[i] = 'a'
	}
	cases := []struct {
		name string
		in   any
		want string
	}{
		{"text loses control characters", "a\x00b\nc\x1b", `"ab\nc"`},
		{"angle brackets stay as they are", "<b>", `"<b>"`},
		{"an object is JSON", map[string]any{"k": 1}, `{"k":1}`},
	}
	for _, tc := range cases {
		if got := string(logData(tc.in)); got != tc.want {
			t.Errorf("%s: logData(%v) = %s; want %s", tc.name, tc.in, got, tc.want)
		}
	}
	for _, in := range []any{string(long), map[string]any{"k": string(long)}, []any{string(long), "<>\"\"\"\"\"\""}} {
		if got := logData(in); len(got) > wire.MaxLogData || !json.Valid(got) {
			t.Errorf("logData of %T: %d bytes, valid %v; want valid JSON of at most %d", in, len(got), json.Valid(got), wire.MaxLogData)
		}
	}
}
