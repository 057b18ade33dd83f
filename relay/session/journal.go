package session

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// A server's journal is its log messages and its other notifications
// (activity), each bounded to the last wire.MaxLogs / wire.MaxActivity
// entries with a count of those let go. Every entry is one change; entries
// that arrive together (a server logging in a burst) are gathered for
// journalFlush into one delta, so that a chatty server costs dashboards a
// few frames rather than one per line. Gathered changes leave before any
// other delta, so the order of what dashboards see is kept.

// Gathering of journal changes.
const (
	journalFlush   = 50 * time.Millisecond // the longest an entry waits
	journalBatch   = 256                   // changes that leave at once without waiting
	activityMaxLen = wire.MaxActivityText
)

// journal is one server's logs and activity.
type journal struct {
	logs                  []wire.LogEntry
	activity              []wire.Activity
	logN, activityN       uint64 // entries numbered so far
	logsDropped, actsDrop uint64
}

// view is the journal as a snapshot carries it.
func (j *journal) view(server string) wire.Journal {
	return wire.Journal{
		Server: server,
		Logs:   slices.Clone(j.logs), LogsDropped: j.logsDropped,
		Activity: slices.Clone(j.activity), ActivityDropped: j.actsDrop,
	}
}

// addLog records a log message of the server.
func (o *Server) addLog(e wire.LogEntry) {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	if o.closed {
		return
	}
	j := &o.journal
	j.logN++
	e.N = j.logN
	if len(j.logs) >= wire.MaxLogs {
		j.logs = j.logs[1:]
		j.logsDropped++
	}
	j.logs = append(j.logs, e)
	o.s.gatherLocked(wire.KindLog, o.reg.ID, e.N, e)
}

// noteActivity records one notification of the server: kind is one of the
// wire.Activity kinds, text says what happened in words (cut to
// wire.MaxActivityText).
func (o *Server) noteActivity(kind wire.ActivityKind, text string) {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	if o.closed {
		return
	}
	j := &o.journal
	j.activityN++
	a := wire.Activity{N: j.activityN, Time: time.Now(), Kind: kind, Text: wire.Sanitize(text, activityMaxLen)}
	if len(j.activity) >= wire.MaxActivity {
		j.activity = j.activity[1:]
		j.actsDrop++
	}
	j.activity = append(j.activity, a)
	o.s.gatherLocked(wire.KindActivity, o.reg.ID, a.N, a)
}

// gatherLocked adds the change putting v to those waiting for the flush.
func (s *Session) gatherLocked(kind wire.ChangeKind, server string, n uint64, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	s.gathered = append(s.gathered, wire.Change{Kind: kind, Server: server, Key: strconv.FormatUint(n, 10), Value: b})
	switch {
	case len(s.gathered) >= journalBatch:
		s.publishLocked(nil) // takes the gathered changes
	case !s.flushing:
		s.flushing = true
		time.AfterFunc(journalFlush, s.flushJournal)
	}
}

// flushJournal publishes the gathered journal changes.
func (s *Session) flushJournal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushing = false
	s.publishLocked(nil)
}

// takeGatheredLocked returns changes with the gathered journal changes
// first; publishLocked calls it so that they leave before anything newer.
func (s *Session) takeGatheredLocked(changes []wire.Change) []wire.Change {
	if len(s.gathered) == 0 {
		return changes
	}
	out := append(s.gathered, changes...)
	s.gathered = nil
	return out
}

// clearJournal empties the server's logs (kind wire.KindLog) or activity.
func (o *Server) clearJournal(kind wire.ChangeKind) {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	if kind == wire.KindLog {
		o.journal.logs, o.journal.logsDropped = nil, 0
	} else {
		o.journal.activity, o.journal.actsDrop = nil, 0
	}
	o.s.publishLocked([]wire.Change{{Kind: kind, Server: o.reg.ID, Remove: true}})
}

// handleJournalOps registers the ops on a server's logs and activity.
func (m *Manager) handleJournalOps(mux *ops.Mux) {
	mux.Handle(wire.OpSetLogLevel, onOwner(m, func(ctx context.Context, o *Server, a wire.SetLogLevelArgs) (any, error) {
		return struct{}{}, o.SetLogLevel(ctx, a.Level)
	}))
	mux.Handle(wire.OpClearLogs, onOwner(m, func(_ context.Context, o *Server, _ wire.ServerArgs) (any, error) {
		o.clearJournal(wire.KindLog)
		return struct{}{}, nil
	}))
	mux.Handle(wire.OpClearActivity, onOwner(m, func(_ context.Context, o *Server, _ wire.ServerArgs) (any, error) {
		o.clearJournal(wire.KindActivity)
		return struct{}{}, nil
	}))
}

// SetLogLevel keeps the level of log messages asked of the server (empty
// for none) and asks the server for it now if it is connected, and again
// on every connection.
func (o *Server) SetLogLevel(ctx context.Context, level wire.LogLevel) error {
	s := o.s
	if level != "" && wire.LevelRank(level) < 0 {
		return wire.NewError(wire.CodeBadRequest, fmt.Sprintf("%q is not a log level; use one of debug, info, notice, warning, error, critical, alert, emergency", wire.Sanitize(string(level), 20)))
	}
	s.prefsMu.Lock()
	c, err := o.changePrefs(ctx, func(p *clientPrefs) { p.LogLevel = string(level) })
	s.prefsMu.Unlock() // the server's answer may be slow: dials wait for prefsMu
	if err != nil || c == nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, settingTimeout)
	defer cancel()
	if err := c.SetLogLevel(ctx, level); err != nil {
		we := asWireError(err)
		out := wire.NewError(we.Code, "the level is saved, but the server did not take it: "+we.Message)
		out.RPCCode = we.RPCCode
		return out
	}
	return nil
}

// serverJournal is the journal of one server's connection.
type serverJournal struct{ o *Server }

var _ conn.Journal = serverJournal{}

// Log implements [conn.Journal].
func (j serverJournal) Log(level wire.LogLevel, p *mcp.LoggingMessageParams) {
	j.o.addLog(mcpwire.LogEntry(level, p))
}

// Activity implements [conn.Journal].
func (j serverJournal) Activity(kind wire.ActivityKind, text string) { j.o.noteActivity(kind, text) }

// LogFromView records a log message that a view of the server sent (op
// app.log), in the server's log as the server's own messages are.
func (o *Server) LogFromView(level wire.LogLevel, p *mcp.LoggingMessageParams) {
	o.addLog(mcpwire.LogEntry(level, p))
}
