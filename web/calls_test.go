package web

import (
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// callsNewestFirst returns calls op-n … op-1.
func callsNewestFirst(n int) []store.Call {
	out := make([]store.Call, n)
	for i := range out {
		out[i] = store.Call{ID: "op-" + strconv.Itoa(n-i)}
	}
	return out
}

func TestNewCallsLeaveTheRestOfTheListInPlace(t *testing.T) {
	recent, rest, settled := splitCalls(callsNewestFirst(3), "")
	if len(recent) != 0 || len(rest) != 3 || settled != "op-3" {
		t.Fatalf("first list: %d recent, %d rest, settled %q; want 0, 3, op-3", len(recent), len(rest), settled)
	}
	for n := 4; n <= 3+maxRecent; n++ {
		recent, rest, settled = splitCalls(callsNewestFirst(n), settled)
		if len(recent) != n-3 || len(rest) != 3 || rest[0].ID != "op-3" || settled != "op-3" {
			t.Fatalf("with %d calls: %d recent, rest from %s, settled %q; want %d recent and the rest as it was", n, len(recent), rest[0].ID, settled, n-3)
		}
	}
	n := 4 + maxRecent
	recent, rest, settled = splitCalls(callsNewestFirst(n), settled)
	if len(recent) != 0 || len(rest) != n || settled != "op-"+strconv.Itoa(n) {
		t.Errorf("past maxRecent new calls: %d recent, %d rest, settled %q; want the list settled", len(recent), len(rest), settled)
	}
	recent, rest, settled = splitCalls(callsNewestFirst(2), "op-9")
	if len(recent) != 0 || len(rest) != 2 || settled != "op-2" {
		t.Errorf("the settled call gone: %d recent, %d rest, settled %q; want the list settled", len(recent), len(rest), settled)
	}
}

func TestAToolResultShowsTheTaskItRanAs(t *testing.T) {
	c := store.Call{ID: "op-1", Kind: wire.CallKindTool, Name: "research", Status: store.CallOK,
		Task: &wire.CallTask{Status: wire.TaskCompleted}, Tool: &wire.CallToolResult{Content: []wire.Content{{Type: wire.ContentText, Text: "report"}}}}
	html := rendered(t, renderCalls("Tool calls", []store.Call{c}))
	if tag := element(html, `class="call-task"`); !strings.Contains(tag, `data-task-status="completed"`) {
		t.Errorf("the result does not show its task: %q in\n%s", tag, html)
	}
}
