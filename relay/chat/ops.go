package chat

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// HandleOps registers the chat's ops (all but the models', which
// relay/models answers) on m.
func (r *Room) HandleOps(m *ops.Mux) {
	m.Handle(wire.OpCreateChat, ops.With(r.create))
	m.Handle(wire.OpUpdateChat, ops.With(r.update))
	m.Handle(wire.OpSetChatAppContext, ops.With(r.setAppContext))
	m.Handle(wire.OpDeleteChat, ops.With(r.delete))
	m.Handle(wire.OpGetChat, ops.With(r.get))
	m.Handle(wire.OpSearchChats, ops.With(r.search))
	m.Handle(wire.OpSendChat, ops.With(r.send))
	m.Handle(wire.OpStopChat, ops.With(r.stop))
	m.Handle(wire.OpRetryChat, ops.With(r.retry))
	m.Handle(wire.OpApproveTool, ops.With(r.approve))
	m.Handle(wire.OpCancelChatTool, ops.With(r.cancelTool))
	m.Handle(wire.OpToolPolicies, ops.With(r.toolPolicies))
	m.Handle(wire.OpSetToolPolicy, ops.With(r.setToolPolicy))
	m.Handle(wire.OpExportChat, ops.With(r.export))
}

var (
	errNoChat  = wire.NewError(wire.CodeNotFound, "no such conversation")
	errNoTurn  = wire.NewError(wire.CodeNotFound, "no such tool call waiting in this conversation")
	errTooMany = wire.NewError(wire.CodeBadRequest, "too many conversations: delete some first")
)

// chatOf reads conversation id of user.
func (r *Room) chatOf(ctx context.Context, user, id string) (wire.Chat, error) {
	c, err := r.cfg.Store.Chat(ctx, user, id)
	if errors.Is(err, store.ErrNotFound) {
		return wire.Chat{}, errNoChat
	}
	if err != nil {
		return wire.Chat{}, wire.NewError(wire.CodeInternal, "could not read the conversation")
	}
	c.Running = r.runOf(user, id) != nil
	return c, nil
}

func (r *Room) create(ctx context.Context, user string, a wire.CreateChatArgs) (any, error) {
	models := a.Models
	if len(models) == 0 {
		models = []string{r.cfg.Models.Default()}
	}
	switch {
	case len(models) > wire.MaxCompare:
		return nil, wire.NewError(wire.CodeBadRequest, "compare at most three models")
	case slices.Contains(models, ""):
		return nil, errNoModel
	}
	for _, m := range models {
		if _, err := r.cfg.Models.Model(ctx, user, m); err != nil {
			return nil, wire.NewError(wire.CodeNotConfigured, "no model named "+wire.Sanitize(m, 100))
		}
	}
	now := time.Now().UTC()
	group := ""
	if len(models) > 1 {
		group = newID("group")
	}
	out := wire.CreateChatResult{}
	var changes []wire.Change
	for _, m := range models {
		c := wire.Chat{ID: newID("chat"), Title: wire.Sanitize(a.Title, wire.MaxChatTitle), Model: m, Group: group,
			Servers: a.Servers, Tools: a.Tools, CodeMode: a.CodeMode, Created: now, Updated: now}
		out.Chats = append(out.Chats, c)
		changes = append(changes, change(wire.KindChat, c.ID, c))
	}
	if err := r.cfg.Store.AddChats(ctx, user, out.Chats); err != nil { // a compare group whole or not at all
		if errors.Is(err, store.ErrTooManyChats) {
			return nil, errTooMany
		}
		return nil, wire.NewError(wire.CodeInternal, "could not save the conversation")
	}
	if err := r.session(user).PublishChat(changes...); err != nil {
		return nil, wire.NewError(wire.CodeInternal, "could not show the conversation")
	}
	return out, nil
}

func (r *Room) update(ctx context.Context, user string, a wire.UpdateChatArgs) (any, error) {
	r.edit.Lock()
	defer r.edit.Unlock()
	c, err := r.chatOf(ctx, user, a.Chat)
	if err != nil {
		return nil, err
	}
	if a.Title != nil {
		t := wire.Sanitize(*a.Title, wire.MaxChatTitle)
		if t == "" {
			return nil, wire.NewError(wire.CodeBadRequest, "a title cannot be empty")
		}
		c.Title = t
	}
	if a.Model != nil {
		if _, err := r.cfg.Models.Model(ctx, user, *a.Model); err != nil {
			return nil, wire.NewError(wire.CodeNotConfigured, "no model named "+wire.Sanitize(*a.Model, 100))
		}
		c.Model = *a.Model
	}
	if a.Servers != nil {
		c.Servers = *a.Servers
	}
	if a.CodeMode != nil {
		c.CodeMode = *a.CodeMode
	}
	if a.Tools != nil {
		c.Tools = *a.Tools
	}
	c.Updated = time.Now().UTC()
	return struct{}{}, r.putChatLocked(ctx, user, c)
}

func (r *Room) delete(ctx context.Context, user string, a wire.ChatArgs) (any, error) {
	if rn := r.runOf(user, a.Chat); rn != nil {
		rn.cancel(errStopped)
		select {
		case <-rn.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	r.edit.Lock()
	defer r.edit.Unlock()
	if err := r.cfg.Store.DeleteChat(ctx, user, a.Chat); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, errNoChat
		}
		return nil, wire.NewError(wire.CodeInternal, "could not delete the conversation")
	}
	return struct{}{}, r.session(user).PublishChat(wire.Change{Kind: wire.KindChat, Key: a.Chat, Remove: true})
}

func (r *Room) get(ctx context.Context, user string, a wire.ChatArgs) (any, error) {
	c, err := r.chatOf(ctx, user, a.Chat)
	if err != nil {
		return nil, err
	}
	turns, err := r.cfg.Store.Turns(ctx, user, a.Chat)
	if err != nil {
		return nil, wire.NewError(wire.CodeInternal, "could not read the conversation")
	}
	if turns == nil {
		turns = []wire.ChatTurn{}
	}
	for i := range turns {
		settleCards(&turns[i])
	}
	return wire.GetChatResult{Chat: c, Turns: turns}, nil
}

func (r *Room) search(ctx context.Context, user string, a wire.SearchChatsArgs) (any, error) {
	ids, err := r.cfg.Store.SearchChats(ctx, user, strings.TrimSpace(a.Query))
	if err != nil {
		return nil, wire.NewError(wire.CodeInternal, "could not search the conversations")
	}
	if ids == nil {
		ids = []string{}
	}
	return wire.SearchChatsResult{Chats: ids}, nil
}

// send starts a turn in the conversation and in every other conversation
// of its compare group.
func (r *Room) send(ctx context.Context, user string, a wire.SendChatArgs) (any, error) {
	text := strings.TrimSpace(a.Text)
	switch {
	case text == "" && len(a.Attachments) == 0:
		return nil, wire.NewError(wire.CodeBadRequest, "the message is empty")
	case len(a.Text) > wire.MaxChatMessage || !utf8.ValidString(a.Text):
		return nil, wire.NewError(wire.CodeBadRequest, "the message is over 100,000 bytes or not UTF-8")
	}
	if err := checkAttachments(a.Attachments); err != nil {
		return nil, err
	}
	group, err := r.group(ctx, user, a.Chat)
	if err != nil {
		return nil, err
	}
	for _, c := range group {
		if r.runOf(user, c.ID) != nil {
			return nil, errRunning
		}
	}
	for _, c := range group {
		if err := r.begin(user, c, c.Turns, text, slices.Clone(a.Attachments), false); err != nil {
			return nil, err
		}
	}
	return struct{}{}, nil
}

// group is the conversation chat with the others of its compare group.
func (r *Room) group(ctx context.Context, user, chat string) ([]wire.Chat, error) {
	c, err := r.chatOf(ctx, user, chat)
	if err != nil || c.Group == "" {
		return []wire.Chat{c}, err
	}
	all, err := r.cfg.Store.Chats(ctx, user)
	if err != nil {
		return nil, wire.NewError(wire.CodeInternal, "could not read the conversations")
	}
	var out []wire.Chat
	for _, o := range all {
		if o.Group == c.Group {
			out = append(out, o)
		}
	}
	return out, nil
}

// stop stops the running turns of the conversation's compare group.
func (r *Room) stop(ctx context.Context, user string, a wire.ChatArgs) (any, error) {
	group, err := r.group(ctx, user, a.Chat)
	if err != nil {
		return nil, err
	}
	for _, c := range group {
		if rn := r.runOf(user, c.ID); rn != nil {
			rn.cancel(errStopped)
		}
	}
	return struct{}{}, nil
}

// retry runs the conversation's last turn again, with a new text when
// the person edited it.
func (r *Room) retry(ctx context.Context, user string, a wire.RetryChatArgs) (any, error) {
	c, err := r.chatOf(ctx, user, a.Chat)
	if err != nil {
		return nil, err
	}
	if c.Running {
		return nil, errRunning
	}
	turns, err := r.cfg.Store.Turns(ctx, user, c.ID)
	if err != nil {
		return nil, wire.NewError(wire.CodeInternal, "could not read the conversation")
	}
	if len(turns) == 0 {
		return nil, wire.NewError(wire.CodeBadRequest, "nothing to retry")
	}
	last := turns[len(turns)-1]
	text := last.Text
	if a.Text != nil {
		text = strings.TrimSpace(*a.Text)
		if text == "" || len(text) > wire.MaxChatMessage {
			return nil, wire.NewError(wire.CodeBadRequest, "the message is empty or over 100,000 bytes")
		}
	}
	atts := slices.Clone(last.Attachments)
	for i := range atts {
		atts[i].Text, atts[i].Error = "", ""
	}
	if err := r.begin(user, c, last.N, text, atts, true); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}

func (r *Room) approve(ctx context.Context, user string, a wire.ApproveToolArgs) (any, error) {
	switch a.Approval {
	case wire.ApproveRun, wire.ApproveDeny, wire.ApproveAlways:
	default:
		return nil, wire.NewError(wire.CodeBadRequest, "approval is run, deny or always")
	}
	tr := r.toolRunOf(user, a.Chat, a.Call)
	if tr == nil {
		return nil, errNoTurn
	}
	select {
	case tr.approve <- a.Approval:
		return struct{}{}, nil
	default:
		return nil, wire.NewError(wire.CodeBadRequest, "this call was answered already")
	}
}

func (r *Room) cancelTool(ctx context.Context, user string, a wire.ChatToolArgs) (any, error) {
	tr := r.toolRunOf(user, a.Chat, a.Call)
	if tr == nil {
		return nil, errNoTurn
	}
	tr.cancel(errToolCancelled)
	return struct{}{}, nil
}

// toolRunOf is a tool call of a conversation's running turn, or nil.
func (r *Room) toolRunOf(user, chat, call string) *toolRun {
	rn := r.runOf(user, chat)
	if rn == nil {
		return nil
	}
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return rn.tools[call]
}

func (r *Room) toolPolicies(ctx context.Context, user string, _ struct{}) (any, error) {
	list, err := r.cfg.Store.ToolPolicies(ctx, user)
	if err != nil {
		return nil, wire.NewError(wire.CodeInternal, "could not read the tool policies")
	}
	if list == nil {
		list = []wire.ToolPolicyEntry{}
	}
	return wire.ToolPoliciesResult{Policies: list}, nil
}

func (r *Room) setToolPolicy(ctx context.Context, user string, a wire.SetToolPolicyArgs) (any, error) {
	switch a.Policy {
	case "", wire.PolicyRun, wire.PolicyAsk, wire.PolicyNever:
	default:
		return nil, wire.NewError(wire.CodeBadRequest, "policy is run, ask, never or empty")
	}
	err := r.cfg.Store.SetToolPolicy(ctx, user, wire.ToolPolicyEntry(a))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, wire.NewError(wire.CodeNotFound, "no such server")
	case err != nil:
		return nil, wire.NewError(wire.CodeInternal, "could not save the policy")
	}
	return struct{}{}, nil
}
