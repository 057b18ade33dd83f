package conn

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/stdiofixture/stdiobin"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func stdioConfig(bin string, env []string, logs *syncBuffer) Config {
	cfg := testConfig("")
	cfg.Transport = wire.TransportStdio
	cfg.Command = &Command{Path: bin, Env: env}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return cfg
}

func callText(t *testing.T, c *Conn, tool, args string) string {
	t.Helper()
	res, err := c.CallTool(context.Background(), toolCall(tool, []byte(args)), nil)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("call %s: %+v", tool, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

func TestStdioServerRunsItsOwnProcessWithOnlyItsEnvironment(t *testing.T) {
	bin := stdiobin.Path(t)
	t.Setenv("SWITCHBOARD_TEST_RELAY_SECRET", "must-not-leak")
	var logs syncBuffer
	c, r := start(t, stdioConfig(bin, []string{"FIXTURE_GREETING=hi"}, &logs))
	ready := r.AwaitState(wire.StateReady)
	if ready.Init.ServerInfo == nil || ready.Init.ServerInfo.Name != "stdiofixture" || len(ready.Lists.Tools) != 3 {
		t.Fatalf("ready = %+v", ready)
	}
	if got := callText(t, c, "echo", `{"text":"over stdio"}`); got != "over stdio" {
		t.Errorf("echo = %q", got)
	}
	env := callText(t, c, "env", `{}`)
	if !strings.Contains(env, "FIXTURE_GREETING=hi") || strings.Contains(env, "must-not-leak") || strings.Count(env, "=") != 1 {
		t.Errorf("the child's environment = %q; want only FIXTURE_GREETING", env)
	}
	pid, err := strconv.Atoi(callText(t, c, "pid", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the server process %d is not running: %v", pid, err)
	}
	c.Close()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("after Close, signalling process %d: %v; want it gone", pid, err)
	}
	if !strings.Contains(logs.String(), "stdiofixture started") {
		t.Errorf("the process's stderr is not in the debug log:\n%s", logs.String())
	}
}

func TestStdioServerStderrIsCappedAndOnlyAtDebug(t *testing.T) {
	bin := stdiobin.Path(t)
	var logs syncBuffer
	c, r := start(t, stdioConfig(bin, []string{"FIXTURE_STDERR_BYTES=300000"}, &logs))
	r.AwaitState(wire.StateReady)
	c.Close()
	got := logs.String()
	if n := strings.Count(got, strings.Repeat("x", 99)); n == 0 || n*100 > maxStderrBytes {
		t.Errorf("%d stderr lines of 100 bytes logged; want some, at most %d bytes", n, maxStderrBytes)
	}
	if !strings.Contains(got, "over the limit") {
		t.Error("the log does not say that stderr was cut")
	}

	var quiet syncBuffer
	cfg := stdioConfig(bin, nil, &quiet)
	cfg.Logger = slog.New(slog.NewTextHandler(&quiet, &slog.HandlerOptions{Level: slog.LevelInfo}))
	c, r = start(t, cfg)
	r.AwaitState(wire.StateReady)
	c.Close()
	if strings.Contains(quiet.String(), "stdiofixture started") {
		t.Errorf("stderr reached an info log:\n%s", quiet.String())
	}
}

func TestStdioServerWithoutACommandFails(t *testing.T) {
	cfg := testConfig("")
	cfg.Transport = wire.TransportStdio
	_, r := start(t, cfg)
	failed := r.AwaitState(wire.StateFailed)
	if !strings.Contains(failed.Error, "no command") {
		t.Errorf("error = %q", failed.Error)
	}
}

func TestStdioCommandThatDoesNotStartKeepsItsPathFromThePerson(t *testing.T) {
	var logs syncBuffer
	cfg := stdioConfig("/nonexistent/secret-layout/server", nil, &logs)
	_, r := start(t, cfg)
	failed := r.AwaitState(wire.StateFailed)
	if strings.Contains(failed.Error, "secret-layout") || !strings.Contains(failed.Error, "did not start") {
		t.Errorf("error shown = %q", failed.Error)
	}
	if !strings.Contains(logs.String(), "secret-layout") {
		t.Errorf("the relay log does not say which command failed:\n%s", logs.String())
	}
}
