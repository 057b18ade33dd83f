package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/session"
)

// Sampling handed to a 2026-07-28 agent. That era has no requests to the
// client during a call: a server that needs the client's input returns an
// input_required result, and the client retries the call with its
// answers. When the person hands a sampling request of an agent's call to
// such an agent (the key's ForwardSampling, the client's declared
// sampling), the gateway does the same: the call goes on apart from the
// agent's request, which gets input_required with the sampling request
// and a requestState naming the call; the agent's retry, with its answer,
// hands the answer to the server and waits on. A call hands at most
// maxRounds requests so, and one the agent does not come back to within
// roundWait is cancelled. The call lives on the replica that started it,
// which its requestState names to the agent.

const (
	maxRounds = 8
	roundWait = 5 * time.Minute
	// samplingInput is the id of the sampling request in inputRequests.
	samplingInput = "sampling"
)

// msgTooManyRounds ends a call that handed the agent more sampling
// requests than it may.
const msgTooManyRounds = "the server asked the agent for sampling more times than one call may"

// errUnknownState refuses a retry whose call is not (or no longer) here.
var errUnknownState = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no call in progress has that requestState: it ended, or the agent took too long to answer"}

// roundCall is an agent's call that may hand sampling to the agent in
// rounds.
type roundCall struct {
	key    string // the agent key's id
	tool   string // as the agent named it
	cancel context.CancelFunc
	asks   chan *handed  // requests the person handed to the agent
	done   chan struct{} // closed when the call ended; res and err then hold
	res    *mcp.CallToolResult
	err    error

	rounds  int     // input_required results so far
	pending *handed // the request the agent is answering
	expiry  *time.Timer
}

// handed is one sampling request handed to the agent, and where its answer
// goes.
type handed struct {
	params *mcp.CreateMessageWithToolsParams
	reply  chan mcp.InputResponse // buffered 1; nil: the agent gave none
}

// rounds holds the calls waiting for their agent's retry, by requestState.
type rounds struct {
	mu    sync.Mutex
	calls map[string]*roundCall
}

// park keeps rc until its agent retries with the returned state, or
// cancels it after roundWait.
func (rs *rounds) park(rc *roundCall) string {
	b := make([]byte, 16)
	rand.Read(b)
	state := hex.EncodeToString(b)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.calls == nil {
		rs.calls = map[string]*roundCall{}
	}
	rs.calls[state] = rc
	rc.expiry = time.AfterFunc(roundWait, func() {
		if rs.take(state, rc.key, rc.tool) != nil {
			rc.cancel()
		}
	})
	return state
}

// take returns and forgets the call of state, if key's agent parked it
// calling tool.
func (rs *rounds) take(state, key, tool string) *roundCall {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rc := rs.calls[state]
	if rc == nil || rc.key != key || rc.tool != tool {
		return nil
	}
	delete(rs.calls, state)
	rc.expiry.Stop()
	return rc
}

// cancelAll cancels every parked call (the gateway closes).
func (rs *rounds) cancelAll() {
	rs.mu.Lock()
	calls := rs.calls
	rs.calls = nil
	rs.mu.Unlock()
	for _, rc := range calls {
		rc.expiry.Stop()
		rc.cancel()
	}
}

// handsSampling reports whether a call of req may hand sampling to its
// agent in rounds: a 2026-07-28 agent whose client declared sampling, with
// a key that allows it.
func handsSampling(grant agentkeys.Grant, req *mcp.CallToolRequest) bool {
	if !grant.ForwardSampling || req.Session == nil {
		return false
	}
	init := req.Session.InitializeParams()
	return init != nil && newEra(init.ProtocolVersion) && init.Capabilities != nil && init.Capabilities.Sampling != nil
}

// roundSampler is the sampler of rc: a request handed to the agent waits
// for its answer in the agent's next retry.
func roundSampler(rc *roundCall, tools bool) *session.AgentSampler {
	return &session.AgentSampler{
		Tools: tools,
		CreateMessage: func(ctx context.Context, p *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
			out := *p
			out.Meta = withoutNewMeta(p.Meta)
			h := &handed{params: &out, reply: make(chan mcp.InputResponse, 1)}
			select {
			case rc.asks <- h:
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-rc.done:
				return nil, errors.New("the call ended")
			}
			select {
			case r := <-h.reply:
				res, ok := r.(*mcp.CreateMessageWithToolsResult)
				if !ok || res == nil {
					return nil, errors.New("the agent answered with no sampling result")
				}
				return res, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	}
}

// startRounds starts the call of req (run) apart from req, for handing
// sampling to its agent in rounds; it ends with the view.
func (v *view) startRounds(ctx context.Context, req *mcp.CallToolRequest, run func(context.Context, *session.AgentSampler) (*mcp.CallToolResult, error)) *roundCall {
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(v.ctx, cancel)
	rc := &roundCall{key: v.key, tool: req.Params.Name, cancel: cancel, asks: make(chan *handed), done: make(chan struct{})}
	init := req.Session.InitializeParams()
	sampler := roundSampler(rc, init.Capabilities.Sampling.Tools != nil)
	go func() {
		defer stop()
		defer cancel()
		rc.res, rc.err = run(cctx, sampler)
		close(rc.done)
	}()
	return rc
}

// resumeRounds hands the agent's answers of req to the call its
// requestState names.
func (v *view) resumeRounds(req *mcp.CallToolRequest) (*roundCall, error) {
	rc := v.g.rounds.take(req.Params.RequestState, v.key, req.Params.Name)
	if rc == nil {
		return nil, errUnknownState
	}
	if rc.pending != nil {
		rc.pending.reply <- req.Params.InputResponses[samplingInput]
		rc.pending = nil
	}
	return rc, nil
}

// awaitRound waits, for the agent's request of ctx, until rc ends or hands
// the agent a sampling request; an agent that lets go of its request
// cancels the call.
func (v *view) awaitRound(ctx context.Context, rc *roundCall) (*mcp.CallToolResult, error) {
	select {
	case <-rc.done:
		return rc.res, rc.err
	case h := <-rc.asks:
		if rc.rounds++; rc.rounds > maxRounds {
			rc.cancel()
			<-rc.done
			return toolError(errors.New(msgTooManyRounds)), nil
		}
		rc.pending = h
		state := v.g.rounds.park(rc)
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{samplingInput: h.params}, RequestState: state}, nil
	case <-ctx.Done():
		rc.cancel()
		<-rc.done
		return nil, ctx.Err()
	}
}
