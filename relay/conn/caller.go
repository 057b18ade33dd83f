package conn

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Attribution. A server's request for a person (an elicitation) names no
// call, but the person must see on whose behalf it asks, and cancelling a
// call must withdraw what it asked. So every tools/call, prompts/get and
// resources/read is registered while it runs, with the [Caller] its context
// carries ([WithCaller]), and an elicitation is attributed to a call:
//   - an input request (2026-07-28) is handled under its call's context;
//   - on Streamable HTTP, a server sends the requests of a call on that
//     call's POST response stream: the RoundTripper that reads along (see
//     relay/readalong) notes each elicitation/create it sees there, keyed by
//     the SHA-256 of its params' encoding, and the handler finds the call
//     by the same key;
//   - otherwise (the legacy SSE transport, the standalone stream) only when
//     exactly one call is in flight.
//
// An attributed ask carries the caller's labels and ends when its call's
// context ends: cancelling a call withdraws every ask it raised.

// Caller says on whose behalf an operation runs; an ask it raises is
// labelled with it.
type Caller struct {
	Agent string // the agent's name; "" for a person's own dashboard
	Tool  string // the tool, prompt or resource called, as its server names it
	Call  string // an id of the call for the person (the agent's request id); optional
	// Note, when not nil, hears of the asks the operation raises, from the
	// goroutine that asks; it must not block.
	Note func(AskNote)
	// Sampler, when not nil, is the agent's own client, to which the person
	// may hand a sampling request the operation raises (see forward.go).
	Sampler *AgentSampler
}

// AskNote is what became of an ask an operation raised.
type AskNote int

// Ask notes.
const (
	AskShown    AskNote = iota // put before a person
	AskSettled                 // answered, or withdrawn
	AskTimedOut                // nobody answered before the deadline
)

type callerKey struct{}
type callIDKey struct{}

// WithCaller returns ctx carrying c, for the operations run under it.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// callerOf returns the Caller of ctx, or the zero one.
func callerOf(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}

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
	live map[uint64]*liveCall
	seen map[askKey]uint64 // elicitations read on a call's stream
}

// liveCall is one call in flight.
type liveCall struct {
	caller Caller
	ctx    context.Context
}

// begin registers the call running under ctx and returns ctx marked with its
// id, and the function that ends it.
func (r *callRegistry) begin(ctx context.Context) (context.Context, func()) {
	r.mu.Lock()
	r.next++
	id := r.next
	if r.live == nil {
		r.live = make(map[uint64]*liveCall)
	}
	r.live[id] = &liveCall{caller: callerOf(ctx), ctx: ctx}
	r.mu.Unlock()
	return context.WithValue(ctx, callIDKey{}, id), func() {
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
// the go-sdk decoded them), handled under ctx, belongs to; ok is false when
// it cannot be told.
func (r *callRegistry) attribute(ctx context.Context, method string, params any) (liveCall, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id, ok := callIDOf(ctx); ok {
		if c := r.live[id]; c != nil {
			return *c, true
		}
	}
	if key, ok := keyOf(method, params); ok {
		if id, seen := r.seen[key]; seen {
			delete(r.seen, key)
			if c := r.live[id]; c != nil {
				return *c, true
			}
		}
	}
	if len(r.live) == 1 {
		for _, c := range r.live {
			return *c, true
		}
	}
	return liveCall{}, false
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

// label puts the caller's labels on a.
func (c *Caller) label(a *wire.Ask) {
	a.Agent = line(c.Agent, maxKeyRunes)
	a.Tool = line(c.Tool, maxKeyRunes)
	a.Call = line(c.Call, maxKeyRunes)
}

// note tells the caller what became of an ask, if it listens.
func (c Caller) note(n AskNote) {
	if c.Note != nil {
		c.Note(n)
	}
}

// askFor asks a, raised by the elicitation p under ctx, on behalf of the call
// it is attributed to, if any: labelled with the caller, withdrawn when the
// call's context ends, and noted to the caller.
func (c *Conn) askFor(ctx context.Context, p *mcp.ElicitParams, a wire.Ask) (Answer, error) {
	ctx, caller, done := c.onBehalf(ctx, methodElicit, p)
	if caller != nil {
		caller.label(&a)
	}
	ans, err := c.cfg.Asker.Ask(ctx, a)
	done(err == nil && ans.TimedOut)
	return ans, err
}

// onBehalf attributes a server request (method, with params as the go-sdk
// decoded them) handled under ctx to the call that raised it. It returns
// ctx, also ended when that call's context ends; the call's Caller, to
// label the ask with, or nil when the call is unknown; and done, to call
// with whether the ask timed out once it is settled. The caller has heard
// of the ask by then (AskShown).
func (c *Conn) onBehalf(ctx context.Context, method string, params any) (context.Context, *Caller, func(timedOut bool)) {
	call, ok := c.calls.attribute(ctx, method, params)
	if !ok {
		return ctx, nil, func(bool) {}
	}
	ctx, stop := withScope(ctx, call.ctx)
	call.caller.note(AskShown)
	return ctx, &call.caller, func(timedOut bool) {
		stop()
		if timedOut {
			call.caller.note(AskTimedOut)
		} else {
			call.caller.note(AskSettled)
		}
	}
}
