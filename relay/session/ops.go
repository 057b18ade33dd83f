package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Limits on what a dashboard may send in an op.
const (
	maxOpID       = 100 // bytes
	maxRunningOps = 64  // per dashboard
)

// HandleOp runs one op frame from sub in its own goroutine and answers it
// exactly once, to sub only.
func (sub *Subscriber) HandleOp(f wire.Frame) {
	if f.ID == "" || len(f.ID) > maxOpID {
		sub.Reply(wire.ErrorFrame("", wire.NewError(wire.CodeBadFrame, "an op needs an id of at most 100 bytes")))
		return
	}
	if f.Op == wire.OpCancel {
		sub.answer(f.ID, sub.cancelOp(f.Data))
		return
	}
	ctx, cancel := context.WithCancelCause(sub.ctx)
	sub.mu.Lock()
	_, dup := sub.ops[f.ID]
	full := len(sub.ops) >= maxRunningOps
	if !dup && !full {
		sub.ops[f.ID] = cancel
	}
	sub.mu.Unlock()
	switch {
	case dup:
		cancel(nil)
		sub.Reply(wire.ErrorFrame(f.ID, wire.NewError(wire.CodeBadRequest, "an op with this id is already running")))
		return
	case full:
		cancel(nil)
		sub.Reply(wire.ErrorFrame(f.ID, wire.NewError(wire.CodeBadRequest, fmt.Sprintf("too many ops in flight (at most %d)", maxRunningOps))))
		return
	}
	go func() {
		s := sub.session
		result, err := s.m.ops.Serve(ctx, ops.Request{User: s.user, Op: f.Op, Args: f.Data, Progress: func(p wire.Progress) { sub.progress(f.ID, p) }})
		if err == nil && ctx.Err() != nil {
			err = wire.NewError(wire.CodeCancelled, "cancelled")
		}
		// The id is free again before the answer leaves, so a dashboard
		// may reuse it as soon as it has the answer.
		sub.mu.Lock()
		delete(sub.ops, f.ID)
		sub.mu.Unlock()
		cancel(nil)
		if err != nil {
			sub.answer(f.ID, err)
			return
		}
		sub.answerResult(f.ID, result)
	}()
}

func (sub *Subscriber) cancelOp(data json.RawMessage) error {
	var args wire.CancelArgs
	if err := ops.Decode(data, &args); err != nil {
		return err
	}
	sub.mu.Lock()
	cancel, ok := sub.ops[args.ID]
	sub.mu.Unlock()
	if !ok {
		return wire.NewError(wire.CodeNotFound, "no running op with this id")
	}
	cancel(errOpCancelled)
	return nil
}

func (sub *Subscriber) answer(id string, err error) {
	if err == nil {
		sub.answerResult(id, struct{}{})
		return
	}
	sub.Reply(wire.ErrorFrame(id, asWireError(err)))
}

func (sub *Subscriber) answerResult(id string, result any) {
	f, err := wire.Result(id, result)
	if err != nil {
		sub.answer(id, fmt.Errorf("encode result: %w", err))
		return
	}
	if limit := sub.session.m.maxResult; len(f.Data) > limit {
		sub.Reply(wire.ErrorFrame(id, wire.NewError(wire.CodeTooLarge, fmt.Sprintf("the result is %d bytes, over the relay's limit of %d bytes", len(f.Data), limit))))
		return
	}
	sub.Reply(f)
}

// progress forwards a progress report of op id, unless the dashboard is
// already behind: progress is advisory, and a server reporting faster than
// the dashboard reads must not get the dashboard disconnected (which would
// cancel the very op reporting).
func (sub *Subscriber) progress(id string, p wire.Progress) {
	if len(sub.outbox) > outboxSize/2 {
		return
	}
	p.Message = wire.Sanitize(p.Message, wire.MaxErrorMessage)
	f, err := wire.NewFrame(wire.TypeProgress, p)
	if err != nil {
		return
	}
	f.ID = id
	sub.Reply(f)
}

// Reply sends one frame to this dashboard only.
func (sub *Subscriber) Reply(f wire.Frame) {
	b, err := wire.Encode(f)
	if err != nil {
		sub.session.m.logger.Error("encode reply", "err", err)
		return
	}
	sub.send(b)
}

// asWireError turns any error into one fit for a dashboard: wire errors
// pass, a connection's failures get their wire code (relay/mcpwire),
// anything else is logged by the caller's context and reported as internal.
func asWireError(err error) *wire.Error {
	if we, ok := mcpwire.Error(err); ok {
		return we
	}
	if errors.Is(err, context.Canceled) {
		return wire.NewError(wire.CodeCancelled, "cancelled")
	}
	return wire.NewError(wire.CodeInternal, "internal error; see the relay log")
}

// handleServerOps registers the ops on the user's servers: add, import,
// edit, connect, remove, retry, ping.
func (m *Manager) handleServerOps(mux *ops.Mux) {
	mux.Handle(wire.OpAddServer, on(m, func(ctx context.Context, s *Session, a wire.AddServerArgs) (any, error) { return s.Add(ctx, a) }))
	mux.Handle(wire.OpImportServers, on(m, func(ctx context.Context, s *Session, a wire.ImportServersArgs) (any, error) {
		return s.ImportServers(ctx, a)
	}))
	mux.Handle(wire.OpUpdateServer, on(m, func(ctx context.Context, s *Session, a wire.UpdateServerArgs) (any, error) {
		return struct{}{}, s.Update(ctx, a)
	}))
	mux.Handle(wire.OpSetServerConnected, on(m, func(ctx context.Context, s *Session, a wire.SetServerConnectedArgs) (any, error) {
		return struct{}{}, s.SetConnected(ctx, a.Server, a.Connected)
	}))
	mux.Handle(wire.OpRemoveServer, on(m, func(ctx context.Context, s *Session, a wire.ServerArgs) (any, error) {
		return struct{}{}, s.RemoveServer(ctx, a.Server)
	}))
	mux.Handle(wire.OpRetryServer, onServer(m, func(_ context.Context, c Connection, _ wire.ServerArgs) (any, error) {
		c.Retry()
		return struct{}{}, nil
	}))
	mux.Handle(wire.OpPing, onServer(m, func(ctx context.Context, c Connection, _ wire.ServerArgs) (any, error) { return ping(ctx, c) }))
}

// on is the handler that runs do with the op's arguments on the session of
// the op's user.
func on[A any](m *Manager, do func(ctx context.Context, s *Session, args A) (any, error)) ops.Handler {
	return ops.With(func(ctx context.Context, user string, args A) (any, error) { return do(ctx, m.Session(user), args) })
}

// onServer is the handler that runs do with the op's arguments, which name
// a server, and that server's live connection.
func onServer[A interface{ ServerID() string }](m *Manager, do func(ctx context.Context, c Connection, args A) (any, error)) ops.Handler {
	return on(m, func(ctx context.Context, s *Session, args A) (any, error) {
		c, err := s.connection(args.ServerID())
		if err != nil {
			return nil, err
		}
		return do(ctx, c, args)
	})
}

// connection returns the live connection of server id.
func (s *Session) connection(id string) (Connection, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.servers[id]
	switch {
	case !ok:
		return nil, wire.NewError(wire.CodeNotFound, "no such server")
	case e.conn == nil:
		return nil, wire.NewError(wire.CodeNotReady, "the server is not connected: the relay is still connecting to it")
	}
	return e.conn, nil
}

// AddServer registers a Streamable HTTP server by name and URL; see [Session.Add].
func (s *Session) AddServer(ctx context.Context, name, rawURL string) (wire.AddServerResult, error) {
	return s.Add(ctx, wire.AddServerArgs{Name: name, URL: rawURL})
}

// Add registers a server and starts connecting to it: name, URL,
// transport (auto when empty), an optional id of the caller's (normalized;
// generated when empty), custom headers and retry settings. The same name
// with the same normalized URL and transport (and id, when given) returns
// the existing server; another server with the name or the id is an error.
func (s *Session) Add(ctx context.Context, args wire.AddServerArgs) (wire.AddServerResult, error) {
	reg, err := newRegistration(s.user, args)
	if err != nil {
		return wire.AddServerResult{}, err
	}
	s.config.Lock()
	defer s.config.Unlock()
	s.mu.Lock()
	closed := s.closed
	regs := make([]store.Server, 0, len(s.order))
	for _, id := range s.order {
		regs = append(regs, s.servers[id].reg)
	}
	s.mu.Unlock()
	if res, found, err := existingFor(reg, args, regs); found || err != nil {
		return res, err
	}
	if closed {
		return wire.AddServerResult{}, wire.NewError(wire.CodeInternal, "the relay is shutting down")
	}
	if err := storeNew(ctx, s.m.store, reg); err != nil {
		if _, ok := err.(*wire.Error); !ok {
			s.m.logger.Error("store server", "user", s.user, "err", err)
			return wire.AddServerResult{}, wire.NewError(wire.CodeInternal, "could not save the server")
		}
		return wire.AddServerResult{}, err
	}
	s.mu.Lock()
	e := s.addEntryLocked(reg)
	s.mu.Unlock()
	s.m.logger.Info("server added", "user", s.user, "server", reg.ID, "url", withoutQuery(reg.URL))
	s.connect(e)
	return wire.AddServerResult{ID: reg.ID}, nil
}

// idTaken says that id belongs to another server.
func idTaken(id, other string) error {
	if other == "" {
		return wire.NewError(wire.CodeBadRequest, fmt.Sprintf("the id %q is taken by another server", id))
	}
	return wire.NewError(wire.CodeBadRequest, fmt.Sprintf("the id %q is taken by the server %q", id, other))
}

// RemoveServer closes a server's connection and forgets it with everything
// that belongs to it (one transaction: the store's foreign keys cascade).
func (s *Session) RemoveServer(ctx context.Context, id string) error {
	s.config.Lock()
	defer s.config.Unlock()
	_, reg, err := s.entryOf(id)
	if err != nil {
		return err
	}
	if isConfigured(reg) {
		return refuseConfigured(reg, "removed")
	}
	if err := s.m.store.DeleteServer(ctx, s.user, id); err != nil && !errors.Is(err, store.ErrNotFound) {
		s.m.logger.Error("delete server", "user", s.user, "server", id, "err", err)
		return wire.NewError(wire.CodeInternal, "could not delete the server")
	}
	s.mu.Lock()
	var c Connection
	if e, ok := s.servers[id]; ok {
		c = e.conn
		s.dropEntryLocked(id)
	}
	s.mu.Unlock()
	s.m.logger.Info("server removed", "user", s.user, "server", id)
	if c != nil {
		c.Close()
	}
	s.forgetAuth(ctx, id)
	return nil
}

func checkName(name string) error {
	switch {
	case name == "":
		return wire.NewError(wire.CodeBadRequest, "a server needs a name")
	case !utf8.ValidString(name):
		return wire.NewError(wire.CodeBadRequest, "the name is not valid UTF-8")
	case utf8.RuneCountInString(name) > wire.MaxServerName:
		return wire.NewError(wire.CodeBadRequest, fmt.Sprintf("the name is longer than %d characters", wire.MaxServerName))
	case strings.IndexFunc(name, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0:
		return wire.NewError(wire.CodeBadRequest, "the name contains control characters")
	}
	return nil
}

// withoutQuery is a URL fit for a log line: a query string often carries an
// API key, so it is left out.
func withoutQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}
