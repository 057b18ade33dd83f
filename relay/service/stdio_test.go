package service

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/stdiofixture/stdiobin"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// writeStdioConfig writes an operator's stdio configuration and returns its path.
func writeStdioConfig(t *testing.T, servers map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "stdio.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// awaitReady waits until server id of s is ready and returns its state.
func awaitReady(t *testing.T, s *session.Session, id string) wire.Server {
	t.Helper()
	changed := make(chan struct{}, 1)
	stop := s.Watch(func(string) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer stop()
	timeout := time.After(10 * time.Second)
	for {
		for _, st := range s.Servers() {
			if st.ID == id && st.State == wire.StateReady {
				return st
			}
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("server %s not ready within 10s: %+v", id, s.Servers())
		}
	}
}

func callText(t *testing.T, s *session.Session, id, tool string) string {
	t.Helper()
	o, ok := s.Server(id)
	if !ok {
		t.Fatalf("no server %s", id)
	}
	res, err := o.CallTool(context.Background(), session.Caller{}, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(`{}`)})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("call %s: %+v, %v", tool, res, err)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

func TestStdioServersFromTheConfigurationRunOneProcessPerUser(t *testing.T) {
	bin := stdiobin.Path(t)
	t.Setenv("SWITCHBOARD_TEST_RELAY_SECRET", "must-not-leak")
	t.Setenv("HOME", "/home/relay")
	path := writeStdioConfig(t, map[string]any{"Local Files": map[string]any{"command": bin, "env": map[string]string{"FIXTURE_GREETING": "hi"}, "cwd": t.TempDir()}})
	ctx := context.Background()
	svc, err := New(ctx, Config{DataDir: t.TempDir(), StdioConfigFile: path})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	const id = "stdio-local-files"
	ann, bob := svc.sessions.Session("ann"), svc.sessions.Session("bob")
	st := awaitReady(t, ann, id)
	if !st.Configured || st.Transport != wire.TransportStdio || st.Name != "Local Files" || st.URL != "" {
		t.Errorf("ann's stdio server = %+v", st)
	}
	awaitReady(t, bob, id)
	annPID, bobPID := callText(t, ann, id, "pid"), callText(t, bob, id, "pid")
	if annPID == bobPID {
		t.Errorf("ann and bob share process %s", annPID)
	}
	env := callText(t, ann, id, "env")
	for _, want := range []string{"FIXTURE_GREETING=hi", "HOME=/home/relay", "PATH="} {
		if !strings.Contains(env, want) {
			t.Errorf("the child's environment lacks %s: %q", want, env)
		}
	}
	if strings.Contains(env, "must-not-leak") || strings.Count(env, "\n") != 2 {
		t.Errorf("the child's environment holds more than its entry and PATH/HOME: %q", env)
	}

	err = ann.RemoveServer(ctx, id)
	if we := (*wire.Error)(nil); !errors.As(err, &we) || we.Code != wire.CodeBadRequest || !strings.Contains(we.Message, "configuration") {
		t.Errorf("removing a configured server: %v", err)
	}
	for _, op := range []wire.OpName{wire.OpAuthorize, wire.OpSetClient} {
		f := wire.Frame{Type: wire.TypeOp, ID: "1", Op: op, Data: json.RawMessage(`{"server":"` + id + `","clientId":"x"}`)}
		sub := ann.Subscribe(wire.Hello{})
		sub.HandleOp(f)
		if got := awaitReply(t, sub, "1"); got.Error == nil || !strings.Contains(got.Error.Message, "configuration") {
			t.Errorf("%s on a configured server: %+v", op, got)
		}
		sub.Close()
	}
	if _, err := ann.Add(ctx, wire.AddServerArgs{Name: "Local Files", URL: "http://127.0.0.1:9/mcp"}); err == nil {
		t.Error("a person added a server under the configured server's name")
	}
	if _, err := ann.Add(ctx, wire.AddServerArgs{Name: "x", URL: "http://127.0.0.1:9/mcp", Transport: wire.TransportStdio}); err == nil {
		t.Error("a person added a stdio server")
	}
	if err := svc.sessions.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if len(ann.Servers()) != 1 {
		t.Errorf("after a sync with the store, ann's servers = %+v", ann.Servers())
	}

	svc.Close()
	for _, p := range []string{annPID, bobPID} {
		pid, _ := strconv.Atoi(p)
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("after the relay closed, process %d: %v; want it gone", pid, err)
		}
	}
}

func TestStdioConfigurationRefusesWhatItCannotRun(t *testing.T) {
	for name, servers := range map[string]map[string]any{
		"an HTTP entry": {"web": map[string]any{"url": "https://x.example/mcp"}},
		"a bad entry":   {"odd": 42},
		"an empty name": {" ": map[string]any{"command": "true"}},
		"two equal ids": {"A b": map[string]any{"command": "true"}, "a-B": map[string]any{"command": "true"}},
		"no command":    {"t": map[string]any{"type": "stdio"}},
	} {
		path := writeStdioConfig(t, servers)
		svc, err := New(context.Background(), Config{DataDir: t.TempDir(), StdioConfigFile: path})
		if err == nil {
			svc.Close()
			t.Errorf("%s: the relay started", name)
			continue
		}
		if !strings.Contains(err.Error(), "stdio config") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := New(context.Background(), Config{DataDir: t.TempDir(), StdioConfigFile: filepath.Join(t.TempDir(), "none.json")}); err == nil {
		t.Error("a missing stdio config file was accepted")
	}
}

func TestStdioIDs(t *testing.T) {
	for name, want := range map[string]string{
		"Local Files":           "stdio-local-files",
		"  git__hub!! ":         "stdio-git__hub",
		"Ünïcode":               "stdio-n-code",
		"!!!":                   "stdio-server",
		strings.Repeat("a", 90): "stdio-" + strings.Repeat("a", 58),
	} {
		if got := stdioID(name); got != want {
			t.Errorf("stdioID(%q) = %q, want %q", name, got, want)
		}
	}
}

// awaitReply reads sub's frames until the answer to op id.
func awaitReply(t *testing.T, sub *session.Subscriber, id string) wire.Frame {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case b := <-sub.Outbox():
			f, err := wire.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if f.ID == id && (f.Type == wire.TypeResult || f.Type == wire.TypeError) {
				return f
			}
		case <-timeout:
			t.Fatalf("no answer to op %s within 10s", id)
		}
	}
}

// Each user's configured servers have a stored row (what belongs to a
// server needs one); a server dropped from the configuration is forgotten
// at the next start, with what belonged to it.
func TestStdioServersDroppedFromTheConfigurationAreForgotten(t *testing.T) {
	bin := stdiobin.Path(t)
	ctx := context.Background()
	data := t.TempDir()
	both := writeStdioConfig(t, map[string]any{"A": map[string]any{"command": bin}, "B": map[string]any{"command": bin}})
	svc, err := New(ctx, Config{DataDir: data, StdioConfigFile: both})
	if err != nil {
		t.Fatal(err)
	}
	ann := svc.sessions.Session("ann")
	awaitReady(t, ann, "stdio-b")
	b, _ := ann.Server("stdio-b")
	if err := b.SetAskModes(ctx, wire.SetAskModesArgs{Server: "stdio-b", Form: true}); err != nil {
		t.Fatalf("ask modes of a configured server: %v", err)
	}
	regs, err := svc.store.Servers(ctx, "ann")
	if err != nil || len(regs) != 2 {
		t.Fatalf("ann's stored servers = %+v, %v; want A and B", regs, err)
	}
	svc.Close()

	onlyA := writeStdioConfig(t, map[string]any{"A": map[string]any{"command": bin}})
	svc, err = New(ctx, Config{DataDir: data, StdioConfigFile: onlyA})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	ann = svc.sessions.Session("ann")
	if got := ann.Servers(); len(got) != 1 || got[0].ID != "stdio-a" {
		t.Errorf("ann's servers after B left the configuration = %+v", got)
	}
	regs, err = svc.store.Servers(ctx, "ann")
	if err != nil || len(regs) != 1 || regs[0].ID != "stdio-a" {
		t.Errorf("ann's stored servers = %+v, %v; want A only", regs, err)
	}
}
