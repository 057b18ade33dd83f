package conn

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"sync"
)

// Attribution. A server's request for a person (an elicitation, a
// sampling request) names no operation, but the person must see on whose
// behalf it asks, and cancelling an operation must withdraw what it asked.
// So every tools/call, prompts/get and resources/read is registered while
// it runs, with its context, and so is the tasks/result of a call run as a
// task (whose questions the server asks on that request's stream, while
// the task is input_required), under the call's context; a request is
// attributed to an operation:
//   - an input request (2026-07-28) is handled under its call's context;
//   - on Streamable HTTP, a server sends the requests of a call on that
//     call's POST response stream: the RoundTripper that reads along (see
//     relay/readalong) notes each elicitation/create it sees there, keyed by
//     the SHA-256 of its params' encoding, and the handler finds the call
//     by the same key;
//   - otherwise (the legacy SSE transport, the standalone stream) only when
//     exactly one call is in flight: a guess.
//
// The asker is asked under a context that ends when the operation's does
// (cancelling an operation withdraws every ask it raised; a guessed ask is
// withdrawn only when its operation is cancelled, not when it returns, as
// the server may have asked for something else) and that carries
// the operation's context ([OperationOf]), with what the operation's
// caller put in it: relay/session labels the ask with it.

type callIDKey struct{}
type operationKey struct{}

// callIDOf returns the registry id of the call ctx belongs to.
func callIDOf(ctx context.Context) (uint64, bool) {
	id, ok := ctx.Value(callIDKey{}).(uint64)
	return id, ok
}

// maxSeenAsks caps the elicitations read along and not yet handled.
const maxSeenAsks = 64

// askKey identifies a server request; see keyOf.
type askKey [sha256.Size]byte

// callRegistry holds the calls in flight of one connection. The zero value
// is ready; it is safe for concurrent use.
type callRegistry struct {
	mu   sync.Mutex
	next uint64
	live map[uint64]liveCall // the calls in flight, by id
	seen map[askKey]uint64   // server requests read on a call's stream
}

// liveCall is a call in flight.
type liveCall struct {
	ctx context.Context // the call's
	// cancelled ends when ctx ends while the call runs, and never once it
	// has returned: the lifetime of a request guessed to be the call's.
	cancelled context.Context
}

// begin registers the call running under ctx and returns ctx marked with its
// id, and the function that ends it.
func (r *callRegistry) begin(ctx context.Context) (context.Context, func()) {
	cancelled, cancel := context.WithCancelCause(context.Background())
	stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	r.mu.Lock()
	r.next++
	id := r.next
	if r.live == nil {
		r.live = make(map[uint64]liveCall)
	}
	r.live[id] = liveCall{ctx: ctx, cancelled: cancelled}
	r.mu.Unlock()
	return context.WithValue(ctx, callIDKey{}, id), func() {
		stop()
		r.mu.Lock()
		delete(r.live, id)
		for k, v := range r.seen {
			if v == id {
				delete(r.seen, k)
			}
		}
		r.mu.Unlock()
	}
}

// Server requests that may be attributed to a call.
const (
	methodElicit   = "elicitation/create"
	methodSampling = "sampling/createMessage"
)

// scan notes the server requests (elicitations, sampling) of msg, read on
// the response stream of call id.
func (r *callRegistry) scan(id uint64, msg []byte) {
	if !bytes.Contains(msg, []byte(methodElicit)) && !bytes.Contains(msg, []byte(methodSampling)) {
		return
	}
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || (m.Method != methodElicit && m.Method != methodSampling) {
		return
	}
	var params any
	if json.Unmarshal(m.Params, &params) != nil {
		return
	}
	key, ok := keyOf(m.Method, params)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, live := r.live[id]; !live || len(r.seen) >= maxSeenAsks {
		return
	}
	if r.seen == nil {
		r.seen = make(map[askKey]uint64)
	}
	r.seen[key] = id
}

// attribute finds the call that a server request (method, with params as
// the go-sdk decoded them), handled under ctx, belongs to, and returns its
// context and the context whose end withdraws the request: the call's, or
// for a guess (the one call in flight) its cancelled. ok is false when it
// cannot be told.
func (r *callRegistry) attribute(ctx context.Context, method string, params any) (call, lifetime context.Context, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id, ok := callIDOf(ctx); ok {
		if c, live := r.live[id]; live {
			return c.ctx, c.ctx, true
		}
	}
	if key, ok := keyOf(method, params); ok {
		if id, seen := r.seen[key]; seen {
			delete(r.seen, key)
			if c, live := r.live[id]; live {
				return c.ctx, c.ctx, true
			}
		}
	}
	if len(r.live) == 1 {
		for _, c := range r.live {
			return c.ctx, c.cancelled, true
		}
	}
	return nil, nil, false
}

// keyOf is the key of a server request: the SHA-256 of its method and of
// its params encoded canonically (decoded as plain JSON values, without
// empty strings, nulls and empty objects and arrays, which a go-sdk type
// adds or drops, and encoded again, which sorts object keys), so that the
// params as read along and as the go-sdk hands them over give the same key.
func keyOf(method string, params any) (askKey, bool) {
	b, err := json.Marshal(params)
	if err != nil {
		return askKey{}, false
	}
	var plain any
	if json.Unmarshal(b, &plain) != nil {
		return askKey{}, false
	}
	if b, err = json.Marshal(pruned(plain)); err != nil {
		return askKey{}, false
	}
	return sha256.Sum256(append([]byte(method+"\x00"), b...)), true
}

// pruned is v without empty strings, nulls and empty objects and arrays.
func pruned(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if x = pruned(x); x != nil {
				out[k] = x
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(v) == 0 {
			return nil
		}
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = pruned(x)
		}
		return out
	case string:
		if v == "" {
			return nil
		}
	}
	return v
}

// onBehalf attributes a server request (method, with params as the go-sdk
// decoded them) handled under ctx to the operation that raised it. It
// returns ctx, also ended when the request is withdrawn with that
// operation (see attribute) and carrying the operation's context for
// [OperationOf], and the function that ends the attribution once the
// request is answered. A request it cannot attribute keeps ctx.
func (c *Conn) onBehalf(ctx context.Context, method string, params any) (context.Context, func()) {
	op, lifetime, ok := c.calls.attribute(ctx, method, params)
	if !ok {
		return ctx, func() {}
	}
	ctx, stop := withScope(ctx, lifetime)
	return context.WithValue(ctx, operationKey{}, op), stop
}

// OperationOf returns, for the context an [Asker] method is called with,
// the context of the operation (tools/call, prompts/get, resources/read)
// the server's request was attributed to, with whatever its caller put in
// it; ok is false when the request could not be attributed.
func OperationOf(ctx context.Context) (context.Context, bool) {
	op, ok := ctx.Value(operationKey{}).(context.Context)
	return op, ok
}
