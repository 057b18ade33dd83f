package conn

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os/exec"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/readalong"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Limits on a stdio server's standard error, which only the relay's debug
// log sees.
const (
	maxStderrBytes = 64 << 10 // per process; the rest is dropped
	maxStderrLine  = 1000     // characters of one logged line
	// stdioTerminate is how long a closed process may take to exit after
	// its stdin closes, and again after SIGTERM, before it is killed.
	stdioTerminate = 2 * time.Second
)

// Command is the process of a stdio server. It comes only from the relay
// operator's configuration, never from a dashboard or an agent.
type Command struct {
	Path string   // the program, looked up in PATH when it has no slash
	Args []string // its arguments, without the program
	Env  []string // its whole environment, KEY=VALUE
	Dir  string   // its working directory; empty for the relay's
}

// stdioTransport starts a new process of the configured command for each
// session, through the go-sdk's CommandTransport (which closes its stdin,
// then signals it, when the session ends). The messages it sends are read
// along as the HTTP transports' are.
func (c *Conn) stdioTransport() mcp.Transport {
	cmd := exec.Command(c.cfg.Command.Path, c.cfg.Command.Args...)
	cmd.Env = c.cfg.Command.Env
	if cmd.Env == nil {
		cmd.Env = []string{} // nil would hand the child the relay's environment
	}
	cmd.Dir = c.cfg.Command.Dir
	if c.log.Enabled(context.Background(), slog.LevelDebug) {
		cmd.Stderr = &stderrLog{log: c.log, left: maxStderrBytes}
	}
	return &stdioReadAlong{inner: &mcp.CommandTransport{Command: cmd, TerminateDuration: stdioTerminate}, scan: c.ra.Scan, log: c.log}
}

// errStartCommand is what a person sees of a command that did not start:
// its path and the reason are the operator's, in the relay's log.
var errStartCommand = errors.New("the configured command did not start; the relay's log says why")

// errNoCommand fails a stdio connection configured without a command.
var errNoCommand = errors.New("the relay's configuration has no command for this server")

// stdioReadAlong shows scan every message its connections read.
type stdioReadAlong struct {
	inner mcp.Transport
	scan  func(msg []byte)
	log   *slog.Logger
}

// Connect implements [mcp.Transport].
func (t *stdioReadAlong) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.inner.Connect(ctx)
	if err != nil {
		t.log.Warn("start stdio server", "err", err)
		return nil, errStartCommand
	}
	return readalong.Connection(conn, t.scan), nil
}

// stderrLog writes a process's standard error to the debug log, a line at
// a time, up to its byte limit.
type stderrLog struct {
	log *slog.Logger

	mu      sync.Mutex
	left    int    // bytes still logged
	partial []byte // an unfinished line
}

// Write implements [io.Writer]; it never fails, so the process never
// blocks on its stderr.
func (w *stderrLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.left <= 0 {
		return len(p), nil
	}
	take := p[:min(len(p), w.left)]
	w.left -= len(take)
	w.partial = append(w.partial, take...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		w.line(w.partial[:i])
		w.partial = w.partial[i+1:]
	}
	if len(w.partial) > maxStderrLine {
		w.line(w.partial)
		w.partial = nil
	}
	if w.left <= 0 {
		if len(w.partial) > 0 {
			w.line(w.partial)
			w.partial = nil
		}
		w.log.Debug("stdio server stderr: over the limit, the rest is dropped", "limit", maxStderrBytes)
	}
	return len(p), nil
}

func (w *stderrLog) line(b []byte) {
	w.log.Debug("stdio server stderr", "line", wire.Sanitize(string(b), maxStderrLine))
}
