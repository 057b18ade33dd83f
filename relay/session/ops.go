package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

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
// pass, a connection's failures get their wire code (relay/mcpwire), a
// store's failure on a full disk says so, anything else is logged by the
// caller's context and reported as internal.
func asWireError(err error) *wire.Error {
	if we, ok := mcpwire.Error(err); ok {
		return we
	}
	if errors.Is(err, context.Canceled) {
		return wire.NewError(wire.CodeCancelled, "cancelled")
	}
	if store.DiskFull(err) {
		return wire.NewError(wire.CodeInternal, diskFullMessage)
	}
	return wire.NewError(wire.CodeInternal, "internal error; see the relay log")
}

// on is the handler that runs do with the op's arguments on the session of
// the op's user.
func on[A any](m *Manager, do func(ctx context.Context, s *Session, args A) (any, error)) ops.Handler {
	return ops.With(func(ctx context.Context, user string, args A) (any, error) { return do(ctx, m.Session(user), args) })
}

// onOwner is the handler that runs do with the op's arguments, which name
// a server, on the owner of that server of the op's user.
func onOwner[A interface{ ServerID() string }](m *Manager, do func(ctx context.Context, o *Server, args A) (any, error)) ops.Handler {
	return on(m, func(ctx context.Context, s *Session, args A) (any, error) {
		o, err := s.server(args.ServerID())
		if err != nil {
			return nil, err
		}
		return do(ctx, o, args)
	})
}

// diskFullMessage tells a dashboard that a change failed for want of disk.
const diskFullMessage = "the relay's disk is full"

// storeFailed is the dashboard's error for a store write that failed: what
// could not be done, or, when the disk caused it, that the relay's disk is
// full, which the person can have fixed.
func storeFailed(err error, what string) *wire.Error {
	if store.DiskFull(err) {
		return wire.NewError(wire.CodeInternal, diskFullMessage)
	}
	return wire.NewError(wire.CodeInternal, what)
}
