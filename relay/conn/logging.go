package conn

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Logging: a server that declares the logging capability is asked for log
// messages from Config.LogLevel up, and [Conn.SetLogLevel] changes the
// level. Before 2026-07-28 that is logging/setLevel, sent on every new
// session and when the level changes; from 2026-07-28 on, where setLevel is
// gone, the level travels in the _meta of every request (SEP-2575) and the
// server logs only while serving one. An empty level asks for nothing: no
// level is sent, and a session that had one is set to emergency, the
// highest. Messages go to the [Journal], never to the relay's own log above
// debug: they are the server's untrusted data. Agents may want a lower
// level (notify.go): the server is asked for the lowest level wanted, and
// the journal keeps only what the person asked for.

// Journal receives what a server reports besides its state, as the server
// sent it: untrusted, for the journal to sanitize and cap. Its methods must
// not block.
type Journal interface {
	// Log receives one log message the person asked for; level is its level,
	// one of wire.LogLevels (info for one the server named otherwise).
	Log(level wire.LogLevel, p *mcp.LoggingMessageParams)
	// Activity receives one notification in words: kind is one of the
	// wire.Activity kinds.
	Activity(kind wire.ActivityKind, text string)
}

// noJournal is the journal of a connection configured without one.
type noJournal struct{}

func (noJournal) Log(wire.LogLevel, *mcp.LoggingMessageParams) {}
func (noJournal) Activity(wire.ActivityKind, string)           {}

// declaresLogging reports whether the server of init declares logging.
func declaresLogging(init *mcp.InitializeResult) bool {
	return init != nil && init.Capabilities != nil && init.Capabilities.Logging != nil
}

// SetLogLevel changes the level of log messages asked of the server, one of
// [wire.LogLevels] or empty for none. It is kept for later sessions; on a
// live session of a server that declares logging it applies at once. Errors
// are [*Error].
func (c *Conn) SetLogLevel(ctx context.Context, level wire.LogLevel) error {
	if level != "" && wire.LevelRank(level) < 0 {
		return newError(BadRequest, "unknown log level "+wire.Sanitize(string(level), 20))
	}
	c.mu.Lock()
	c.logLevel = level
	c.mu.Unlock()
	return c.reapplyLogLevel(ctx)
}

// reapplyLogLevel asks a live session's server for the level now wanted.
func (c *Conn) reapplyLogLevel(ctx context.Context) error {
	c.mu.Lock()
	s := c.live
	c.mu.Unlock()
	if s == nil {
		return nil
	}
	_, err := do(ctx, s, func(ctx context.Context) (struct{}, error) { return struct{}{}, c.applyLogLevel(ctx, s, true) })
	return err
}

// applyLogLevel asks the server of s for the current level, when it
// declares logging and speaks a protocol that has logging/setLevel. changed
// says the level was set before on s, so that an empty level must undo it.
func (c *Conn) applyLogLevel(ctx context.Context, s *session, changed bool) error {
	init := s.cs.InitializeResult()
	if !declaresLogging(init) || init.ProtocolVersion >= statelessProtocol {
		return nil
	}
	level := c.wantedLogLevel()
	if level == "" {
		if !changed {
			return nil
		}
		level = wire.LevelEmergency
	}
	return s.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)})
}

// personLogLevel is the level the person asked for; empty for none.
func (c *Conn) personLogLevel() wire.LogLevel {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.logLevel
}

// wantedLogLevel is the lowest level anyone wants, the person or an agent
// ([Conn.SetAgentLogLevel]); empty when nobody wants any.
func (c *Conn) wantedLogLevel() wire.LogLevel {
	c.mu.Lock()
	defer c.mu.Unlock()
	level := c.logLevel
	for _, l := range c.agentLevels {
		if level == "" || wire.LevelRank(l) < wire.LevelRank(level) {
			level = l
		}
	}
	return level
}

// levelPerRequest is a sending middleware: from 2026-07-28 on, it puts the
// log level in the _meta of every request.
func (c *Conn) levelPerRequest(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		cs, ok := req.GetSession().(*mcp.ClientSession)
		params := req.GetParams()
		level := c.wantedLogLevel()
		if ok && level != "" && params != nil && !isNotification(method) &&
			cs.InitializeResult() != nil && cs.InitializeResult().ProtocolVersion >= statelessProtocol {
			meta := params.GetMeta()
			if meta == nil {
				meta = map[string]any{}
			}
			meta[mcp.MetaKeyLogLevel] = string(level)
			params.SetMeta(meta)
		}
		return next(ctx, method, req)
	}
}

// logMessage is the go-sdk's LoggingMessageHandler of c: agents' listeners
// get every message (each filters by its own level), the journal those at
// or above the person's level.
func (c *Conn) logMessage(_ context.Context, req *mcp.LoggingMessageRequest) {
	defer c.ra.Notices.Pass()
	p := req.Params
	if p == nil {
		return
	}
	c.passLog(p)
	level := wire.LogLevel(p.Level)
	if wire.LevelRank(level) < 0 {
		level = wire.LevelInfo
	}
	person := c.personLogLevel()
	if person == "" || wire.LevelRank(level) < wire.LevelRank(person) {
		return // not asked for by the person: a server that logs anyway is not heard
	}
	c.log.Debug("mcp log message", "level", level)
	c.cfg.Journal.Log(level, p)
}

// askLogLevel asks a new session's server for the current level. A server
// that refuses still serves: the failure is only logged.
func (c *Conn) askLogLevel(s *session) {
	ctx, cancel := context.WithTimeout(s.ctx, connectTimeout)
	defer cancel()
	if err := c.applyLogLevel(ctx, s, false); err != nil {
		c.log.Warn("mcp logging/setLevel failed", "error", wire.Sanitize(describe(err), wire.MaxErrorMessage))
	}
}
