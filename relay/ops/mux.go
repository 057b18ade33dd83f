package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/switchboard-mcp/switchboard/relay/tracing"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Request is one op of a dashboard, as a handler sees it.
type Request struct {
	User string      // the person the dashboard is signed in as
	Op   wire.OpName // the op asked for
	Args json.RawMessage
	// Progress reports progress of a long op to the dashboard that sent
	// it; it never blocks.
	Progress func(wire.Progress)
}

// Handler answers one op.
type Handler func(ctx context.Context, r Request) (any, error)

// Mux routes ops to their handlers. Its zero value is not ready: use
// [NewMux]. It is safe for concurrent use.
type Mux struct {
	mu       sync.RWMutex
	handlers map[wire.OpName]Handler
}

// NewMux returns a mux with no handler.
func NewMux() *Mux { return &Mux{handlers: map[wire.OpName]Handler{}} }

// Handle registers h for op. Registering an op twice is a programming
// error, and panics, as http.ServeMux does for a pattern.
func (m *Mux) Handle(op wire.OpName, h Handler) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.handlers[op]; dup {
		panic(fmt.Sprintf("ops: %q registered twice", op))
	}
	m.handlers[op] = h
}

// Serve runs the handler of r.Op.
func (m *Mux) Serve(ctx context.Context, r Request) (any, error) {
	m.mu.RLock()
	h, ok := m.handlers[r.Op]
	m.mu.RUnlock()
	if !ok {
		return nil, wire.NewError(wire.CodeUnknownOp, fmt.Sprintf("unknown op %q", wire.Sanitize(string(r.Op), 100)))
	}
	ctx, span := tracing.Start(ctx, "op "+string(r.Op))
	res, err := h(ctx, r)
	tracing.End(span, err)
	return res, err
}
