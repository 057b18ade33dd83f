package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/switchboard-mcp/switchboard/relay/codemode"
	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/toolnames"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// offer is what one model request offers: the tools, and what each name
// stands for.
type offer struct {
	tools    []llm.Tool
	refs     map[string]wire.ToolRef // by the name the model sees
	policies map[wire.ToolRef]wire.ToolPolicy
	readOnly map[wire.ToolRef]bool
	servers  []codemode.Server // in code mode: what a program may call
	picked   []pickedTool      // the tools offered one by one, in order
}

// pickedTool is a tool an offer holds, with its server.
type pickedTool struct {
	server wire.Server
	tool   wire.Tool
	ref    wire.ToolRef
}

// maxToolDescription caps a tool's description given to a model.
const maxToolDescription = 1024

// offer lists the tools of the conversation's ready servers that its
// choice and the person's policies allow, named for model APIs.
func (rn *run) offer() offer {
	o := offer{refs: map[string]wire.ToolRef{}, policies: rn.policies(), readOnly: map[wire.ToolRef]bool{}}
	taken := map[string]bool{}
	for _, srv := range rn.r.session(rn.user).Servers() {
		if srv.State != wire.StateReady || !chosenServer(rn.chat, srv.ID) {
			continue
		}
		names := toolnames.Model.Names(srv.ID, toolNames(srv.Tools))
		for _, t := range srv.Tools {
			ref := wire.ToolRef{Server: srv.ID, Tool: t.Name}
			if t.Uncallable != "" || !t.ForModel() || !chosenTool(rn.chat, ref) || o.policies[ref] == wire.PolicyNever {
				continue
			}
			name := names[t.Name]
			for i := 2; taken[name]; i++ { // two servers whose ids were cut alike
				suffix := fmt.Sprintf("-%d", i)
				name = names[t.Name][:min(len(names[t.Name]), toolnames.Model.Max-len(suffix))] + suffix
			}
			taken[name] = true
			o.refs[name], o.readOnly[ref] = ref, readOnly(t)
			o.tools = append(o.tools, llm.Tool{Name: name, Description: describe(srv, t), InputSchema: t.InputSchema})
			o.picked = append(o.picked, pickedTool{srv, t, ref})
		}
	}
	if rn.chat.CodeMode {
		return rn.codeOffer(o)
	}
	return o
}

// chosenServer says whether the conversation uses server id.
func chosenServer(c wire.Chat, id string) bool {
	if len(c.Servers) == 0 && len(c.Tools) == 0 {
		return true
	}
	return slices.Contains(c.Servers, id) || slices.ContainsFunc(c.Tools, func(r wire.ToolRef) bool { return r.Server == id })
}

// chosenTool says whether the conversation uses tool ref: every tool of a
// chosen server, or the single tools chosen.
func chosenTool(c wire.Chat, ref wire.ToolRef) bool {
	return len(c.Servers) == 0 && len(c.Tools) == 0 || slices.Contains(c.Servers, ref.Server) || slices.Contains(c.Tools, ref)
}

func toolNames(tools []wire.Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

// describe is a tool's description for a model, naming its server.
func describe(srv wire.Server, t wire.Tool) string {
	d := t.Description
	if d == "" {
		d = t.Title
	}
	return wire.Sanitize(fmt.Sprintf("[%s] %s", srv.Name, d), maxToolDescription)
}

// readOnly says whether a tool says it only reads (annotations.readOnlyHint).
func readOnly(t wire.Tool) bool {
	var hints struct {
		ReadOnly bool `json:"readOnlyHint"`
	}
	json.Unmarshal(t.Annotations, &hints) // unreadable annotations state nothing
	return hints.ReadOnly
}

// policies are the person's tool policies; a failed read leaves every tool
// to its default.
func (rn *run) policies() map[wire.ToolRef]wire.ToolPolicy {
	ctx, done := storeCtx()
	defer done()
	list, err := rn.r.cfg.Store.ToolPolicies(ctx, rn.user)
	if err != nil {
		rn.r.log.Error("read tool policies", "user", rn.user, "err", err)
	}
	out := make(map[wire.ToolRef]wire.ToolPolicy, len(list))
	for _, e := range list {
		out[e.ToolRef] = e.Policy
	}
	return out
}

// policy is whether the turn runs tool ref without asking, asks, or never.
func (rn *run) policy(o offer, ref wire.ToolRef) wire.ToolPolicy {
	p, set := o.policies[ref]
	switch {
	case set && p == wire.PolicyNever:
		return wire.PolicyNever
	case rn.always(ref):
		return wire.PolicyRun
	case set:
		return p
	case o.readOnly[ref]:
		return wire.PolicyRun
	}
	return wire.PolicyAsk
}

// toolRun is one tool call of a turn while it waits or runs.
type toolRun struct {
	part    int
	cancel  context.CancelCauseFunc
	approve chan wire.Approval // buffered; receives the person's answer
}

// Causes that end one tool call.
var (
	errToolCancelled = errors.New("the person cancelled this call")
	errStopped       = errors.New("the person stopped the turn")
)

// runTools turns the cards of the answer's calls into the calls, runs
// those allowed (asking the person first where the policy says so), at
// once, and returns their results for the model in the calls' order.
func (rn *run) runTools(a answer, o offer, images bool) []llm.Part {
	calls := a.calls
	results := make([]llm.Part, len(calls))
	var wg sync.WaitGroup
	for i, call := range calls {
		card := &wire.ChatToolCall{ID: call.ID, Name: call.Name, Arguments: call.Arguments, State: wire.ToolRunning}
		ref, known := o.refs[call.Name]
		var refusal string
		switch {
		case !known:
			card.State, refusal = wire.ToolFailed, fmt.Sprintf("No tool named %q is offered in this conversation.", wire.Sanitize(call.Name, 100))
		case !isObject(call.Arguments):
			card.Server, card.Tool = ref.Server, ref.Tool
			card.State, refusal = wire.ToolFailed, "The arguments are not a JSON object."
		default:
			card.Server, card.Tool = ref.Server, ref.Tool
			switch rn.policy(o, ref) {
			case wire.PolicyNever:
				card.State, refusal = wire.ToolDenied, "The person does not allow this tool."
			case wire.PolicyAsk:
				card.State = wire.ToolApproval
			}
		}
		if refusal != "" {
			card.Error = refusal
			rn.putTool(a.cards[i], card)
			results[i] = refused(call.ID, refusal)
			continue
		}
		ctx, cancel := context.WithCancelCause(rn.ctx)
		tr := &toolRun{cancel: cancel, approve: make(chan wire.Approval, 1), part: a.cards[i]}
		rn.putTool(tr.part, card)
		rn.mu.Lock()
		rn.tools[card.ID] = tr
		rn.mu.Unlock()
		wg.Go(func() {
			defer cancel(nil)
			results[i] = rn.runTool(ctx, tr, call, ref, o, card.State == wire.ToolApproval, images)
		})
	}
	rn.save()
	wg.Wait()
	rn.save()
	return results
}

// isObject says whether raw is a JSON object (empty counts as {}).
func isObject(raw json.RawMessage) bool {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return true
	}
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// refused is a tool result that says why the call did not run.
func refused(id, why string) llm.Part {
	return llm.ToolResultPart(llm.ToolResult{CallID: id, Parts: []llm.Part{llm.TextPart(why)}, IsError: true})
}
