package store

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func logChange(server string, n uint64, level wire.LogLevel) wire.Change {
	b, _ := json.Marshal(wire.LogEntry{N: n, Level: level, Data: json.RawMessage(`"line"`)})
	return wire.Change{Kind: wire.KindLog, Server: server, Key: strconv.FormatUint(n, 10), Value: b}
}

func TestLogLinesArriveOneByOneAndLeaveEarlierViewsAlone(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 5, twoServers())
	s.delta(6, logChange("s1", 1, wire.LevelInfo))
	before := c.View()
	s.delta(7, logChange("s1", 2, wire.LevelError), logChange("s2", 1, wire.LevelDebug))
	after := c.View()

	if j := before.Snapshot.JournalOf("s1"); j == nil || len(j.Logs) != 1 {
		t.Fatalf("the earlier view's journal changed: %+v", j)
	}
	if j := after.Snapshot.JournalOf("s1"); j == nil || len(j.Logs) != 2 || j.Logs[1].Level != wire.LevelError {
		t.Fatalf("s1's logs = %+v; want info then error", j)
	}
	if j := after.Snapshot.JournalOf("s2"); j == nil || len(j.Logs) != 1 {
		t.Fatalf("s2's logs = %+v; want one line", j)
	}

	s.delta(8, wire.Change{Kind: wire.KindLog, Server: "s1", Remove: true})
	cleared := c.View()
	if j := cleared.Snapshot.JournalOf("s1"); len(j.Logs) != 0 {
		t.Errorf("s1's logs after clearing = %+v", j.Logs)
	}
	if j := after.Snapshot.JournalOf("s1"); len(j.Logs) != 2 {
		t.Errorf("clearing changed an earlier view: %+v", j.Logs)
	}

	roots, _ := json.Marshal([]wire.Root{{URI: "file:///a"}})
	s.delta(9, wire.Change{Kind: wire.KindRoots, Value: roots})
	if got := c.View().Snapshot.Roots; len(got) != 1 || got[0].URI != "file:///a" {
		t.Errorf("roots = %+v", got)
	}
	s.delta(10, wire.Change{Kind: wire.KindServer, Server: "s1", Key: "s1", Remove: true})
	removed := c.View()
	if j := removed.Snapshot.JournalOf("s1"); j != nil {
		t.Errorf("a removed server's journal stays: %+v", j)
	}
	if !c.View().Loaded || c.View().Status != StatusLive {
		t.Errorf("the deltas made the client resync: %+v", c.View().Status)
	}
}
