package conn

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/rootsfixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// logged is one log message a connection journaled, at its level.
type logged struct {
	Level wire.LogLevel
	P     *mcp.LoggingMessageParams
}

// journalRecorder collects what a connection reports besides its state.
type journalRecorder struct {
	mu       sync.Mutex
	logs     []logged
	activity []wire.ActivityKind // kinds
	changed  chan struct{}
}

func newJournalRecorder() *journalRecorder {
	return &journalRecorder{changed: make(chan struct{}, 1)}
}

func (j *journalRecorder) Log(level wire.LogLevel, p *mcp.LoggingMessageParams) {
	j.mu.Lock()
	j.logs = append(j.logs, logged{level, p})
	j.mu.Unlock()
	j.signal()
}

func (j *journalRecorder) Activity(kind wire.ActivityKind, _ string) {
	j.mu.Lock()
	j.activity = append(j.activity, kind)
	j.mu.Unlock()
	j.signal()
}

func (j *journalRecorder) signal() {
	select {
	case j.changed <- struct{}{}:
	default:
	}
}

// await waits until ok holds for what was recorded.
func (j *journalRecorder) await(t *testing.T, what string, ok func(logs []logged, activity []wire.ActivityKind) bool) {
	t.Helper()
	timeout := time.NewTimer(waitFor)
	defer timeout.Stop()
	for {
		j.mu.Lock()
		done := ok(j.logs, j.activity)
		j.mu.Unlock()
		if done {
			return
		}
		select {
		case <-j.changed:
		case <-timeout.C:
			j.mu.Lock()
			defer j.mu.Unlock()
			t.Fatalf("no %s within %v; logs %+v, activity %v", what, waitFor, j.logs, j.activity)
		}
	}
}

// levelsFrom lists the levels of logs from index i on.
func levelsFrom(logs []logged, i int) []string {
	var out []string
	for _, e := range logs[i:] {
		out = append(out, string(e.Level))
	}
	return out
}

// listRoots calls the fixture's roots tool.
func listRoots(t *testing.T, c *Conn) []rootsfixture.Root {
	t.Helper()
	res, err := c.CallTool(context.Background(), toolCall("roots", nil), nil)
	if err != nil {
		t.Fatalf("call roots: %v", err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("roots tool failed: %+v", res)
	}
	roots, err := rootsfixture.ParseRoots(res.Content[0].(*mcp.TextContent).Text)
	if err != nil {
		t.Fatal(err)
	}
	return roots
}

func TestServerListsTheRootsAndHearsTheirChanges(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			f := rootsfixture.Start(t, rootsfixture.Options{Stateless: e.stateless})
			cfg := testConfig(f.URL())
			cfg.Roots = []wire.Root{{URI: "file:///home/ada/notes", Name: "Notes"}}
			c, r := start(t, cfg)
			r.AwaitState(wire.StateReady)
			want := []rootsfixture.Root{{URI: "file:///home/ada/notes", Name: "Notes"}}
			if got := listRoots(t, c); !reflect.DeepEqual(got, want) {
				t.Fatalf("roots listed = %+v; want %+v", got, want)
			}

			c.SetRoots([]wire.Root{{URI: "file:///srv/code"}})
			if !e.stateless { // the stateless protocol has no roots list changes: every request asks
				f.Await(t, waitFor, "a roots list change", func() bool { return f.RootsChanged() >= 1 })
			}
			want = []rootsfixture.Root{{URI: "file:///srv/code"}}
			if got := listRoots(t, c); !reflect.DeepEqual(got, want) {
				t.Fatalf("roots listed after the change = %+v; want %+v", got, want)
			}

			before := f.RootsChanged()
			c.SetRoots([]wire.Root{{URI: "file:///srv/code"}})
			c.SetRoots(nil)
			if got := listRoots(t, c); len(got) != 0 {
				t.Errorf("roots listed after clearing = %+v; want none", got)
			}
			if !e.stateless {
				f.Await(t, waitFor, "the change that cleared the roots", func() bool { return f.RootsChanged() == before+1 })
			}
		})
	}
}

func TestLogLevelIsAskedForAndChanged(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			f := rootsfixture.Start(t, rootsfixture.Options{Stateless: e.stateless})
			j := newJournalRecorder()
			cfg := testConfig(f.URL())
			cfg.LogLevel, cfg.Journal = wire.LevelWarning, j
			c, r := start(t, cfg)
			ready := r.AwaitState(wire.StateReady)
			if ready.Init.Capabilities.Logging == nil {
				t.Fatal("the server declares logging, but the state does not say so")
			}
			if !e.stateless {
				f.Await(t, waitFor, "logging/setLevel warning", func() bool { return reflect.DeepEqual(f.Levels(), []string{"warning"}) })
			}
			call := func() {
				t.Helper()
				if _, err := c.CallTool(context.Background(), toolCall("log", json.RawMessage(`{"message":"hi"}`)), nil); err != nil {
					t.Fatalf("call log: %v", err)
				}
			}
			call()
			j.await(t, "log messages from warning up", func(logs []logged, _ []wire.ActivityKind) bool {
				return len(logs) >= 4 && logs[len(logs)-1].Level == wire.LevelEmergency
			})
			j.mu.Lock()
			got := levelsFrom(j.logs, 0)
			first := j.logs[0]
			seen := len(j.logs)
			j.mu.Unlock()
			if want := []string{"warning", "error", "critical", "alert", "emergency"}; !reflect.DeepEqual(got, want) {
				t.Fatalf("levels logged = %v; want %v", got, want)
			}
			if first.P.Logger != "fixture" || first.P.Data != "hi at warning" {
				t.Errorf("first entry = %+v; want logger fixture, data \"hi at warning\"", first.P)
			}

			if err := c.SetLogLevel(context.Background(), wire.LevelError); err != nil {
				t.Fatal(err)
			}
			if !e.stateless {
				f.Await(t, waitFor, "logging/setLevel error", func() bool { return len(f.Levels()) == 2 && f.Levels()[1] == "error" })
			}
			call()
			j.await(t, "log messages from error up", func(logs []logged, _ []wire.ActivityKind) bool {
				return len(logs) > seen && logs[len(logs)-1].Level == wire.LevelEmergency
			})
			j.mu.Lock()
			got = levelsFrom(j.logs, seen)
			j.mu.Unlock()
			if want := []string{"error", "critical", "alert", "emergency"}; !reflect.DeepEqual(got, want) {
				t.Errorf("levels logged after raising the level = %v; want %v", got, want)
			}

			if err := c.SetLogLevel(context.Background(), "loud"); errCode(t, err) != BadRequest {
				t.Errorf("an unknown level: code %s; want %s", errCode(t, err), BadRequest)
			}
		})
	}
}

func TestLogLevelIsAskedForAgainOnReconnect(t *testing.T) {
	f := rootsfixture.Start(t, rootsfixture.Options{})
	cfg := testConfig(f.URL())
	cfg.LogLevel = wire.LevelInfo
	c, r := start(t, cfg)
	r.AwaitState(wire.StateReady)
	if err := c.SetLogLevel(context.Background(), wire.LevelDebug); err != nil {
		t.Fatal(err)
	}
	c.Retry()
	f.Await(t, waitFor, "the level asked for again", func() bool {
		return reflect.DeepEqual(f.Levels(), []string{"info", "debug", "debug"})
	})
}

func TestActivityNotesAListChange(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			f := rootsfixture.Start(t, rootsfixture.Options{Stateless: e.stateless})
			j := newJournalRecorder()
			cfg := testConfig(f.URL())
			cfg.Journal = j
			c, r := start(t, cfg)
			r.AwaitState(wire.StateReady)
			if _, err := c.CallTool(context.Background(), toolCall("grow", nil), nil); err != nil {
				t.Fatal(err)
			}
			j.await(t, "a tools list change", func(_ []logged, activity []wire.ActivityKind) bool {
				for _, k := range activity {
					if k == wire.ActivityToolsChanged {
						return true
					}
				}
				return false
			})
			r.Await("the new tool listed", func(s State) bool {
				for _, tool := range listsOf(s).Tools {
					if tool.Name == "grown-1" {
						return true
					}
				}
				return false
			})
		})
	}
}
