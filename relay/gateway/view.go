package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// upstream is what the gateway uses of a server's live connection for the
// requests that are not calls (calls go through the server's owner,
// calls.go). A session's [session.Connection] is one: the compiler checks
// it where [view.connection] takes one.
type upstream interface {
	Complete(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error)
	Ping(ctx context.Context) (time.Duration, error)
	HoldSubscription(ctx context.Context, uri string) error
	ReleaseSubscription(ctx context.Context, uri string) error
	SetAgentLogLevel(ctx context.Context, holder any, level wire.LogLevel) error
	ReleaseAgentLogLevel(ctx context.Context, holder any) error
	OnResourceUpdated(fn func(uri string)) (stop func())
	OnLog(fn func(*mcp.LoggingMessageParams)) (stop func())
}

// view is what one agent key sees through one endpoint (the aggregate one,
// or one server's): an MCP server whose tools, prompts, resources and
// templates follow the ready servers in the key's scope, and the HTTP
// handler of its sessions. Its lists are synced from the servers when a
// server changes (Session.Watch) and when the key's scope changes; the
// go-sdk sends list_changed for each change, debounced.
type view struct {
	g    *Gateway
	key  string
	only string // the server of /mcp/s/<id>; "" for the aggregate endpoints
	code bool   // CodePath: code mode whatever the key's mode
	user *session.Session
	srv  *mcp.Server
	http http.Handler // stateful sessions: 2025-11-25 and before
	// stateless serves the requests of 2026-07-28, each on its own, from
	// what the request carries (gateway.go).
	stateless http.Handler
	grant     atomic.Pointer[agentkeys.Grant]

	ctx       context.Context // ends when the view closes
	cancel    context.CancelFunc
	done      chan struct{}
	kick      chan struct{} // a server changed; buffered 1
	stopWatch func()

	syncing     sync.Mutex // one sync at a time
	subscribing sync.Mutex // one subscribe at a time
	mu          sync.Mutex
	pending     map[string]bool                 // servers to sync
	shown       map[string]*exposure            // what each server has on srv
	logs        map[string]heard                // the log listener of each server shown
	subs        map[string]subscription         // by exposed URI
	subHolders  map[*mcp.ServerSession]bool     // the sessions holding subscriptions, watched to end (notify.go)
	active      map[string]map[*activeCall]bool // calls in flight, by server
	calls       atomic.Uint64                   // numbers the calls, for ask labels
	use         map[string]*sessionUse          // by session id, for the cap (sessioncap.go)
	tasks       taskTable                       // the agents' tasks (tasks.go)

	expiry    *time.Timer // closes the view when its grant expires; under mu
	expiresAt time.Time   // when expiry fires; under mu
	ending    atomic.Bool // the view's server went; it is being retired
	closeOnce sync.Once
}

// exposure is what one server has on a view's MCP server: for each kind,
// the exposed name (or URI) → the server's own, and the JSON last added,
// to add again only what changed.
type exposure struct {
	tools, prompts, resources, templates map[string]item
}

// item is one exposed thing.
type item struct {
	name string // the server's own name or URI
	agg  string // a tool's name on the aggregate endpoint, which grants use
	json []byte // as last added
}

// newView builds the view of key on user's servers and syncs it once.
func (g *Gateway) newView(grant agentkeys.Grant, k viewKey) *view {
	ctx, cancel := context.WithCancel(context.Background())
	v := &view{
		g: g, key: grant.KeyID, only: k.only, code: k.code,
		user:       g.cfg.Sessions.Session(grant.User),
		ctx:        ctx,
		cancel:     cancel,
		done:       make(chan struct{}),
		kick:       make(chan struct{}, 1),
		pending:    map[string]bool{},
		shown:      map[string]*exposure{},
		logs:       map[string]heard{},
		subs:       map[string]subscription{},
		subHolders: map[*mcp.ServerSession]bool{},
		active:     map[string]map[*activeCall]bool{},
		use:        map[string]*sessionUse{},
	}
	v.grant.Store(&grant)
	sdkLog := slog.New(agentSessionLog{g.log.Handler()}).With("key", grant.KeyID)
	v.srv = mcp.NewServer(&mcp.Implementation{Name: "switchboard", Title: "Switchboard", Version: g.cfg.Version}, &mcp.ServerOptions{
		Logger: sdkLog,
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{ListChanged: true},
			Prompts:     &mcp.PromptCapabilities{ListChanged: true},
			Resources:   &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Logging:     &mcp.LoggingCapabilities{},
			Completions: &mcp.CompletionCapabilities{},
			Extensions: map[string]any{
				wire.AppsExtension: map[string]any{"mimeTypes": []string{wire.AppMIMEType}},
				TasksExtension:     map[string]any{},
			},
		},
		CompletionHandler:  v.complete,
		SubscribeHandler:   v.subscribe,
		UnsubscribeHandler: v.unsubscribe,
		// What a view lists and reads is one person's.
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.CacheScope = "private" },
	})
	v.srv.AddReceivingMiddleware(v.routing)
	v.addTaskMethods()
	if v.showsCode() {
		v.addCodeTools()
	}
	v.http = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return v.srv }, &mcp.StreamableHTTPOptions{
		Logger:              sdkLog,
		SessionTimeout:      g.cfg.SessionIdle,
		MaxRequestBodyBytes: wire.MaxInboundFrame,
		EventStore:          mcp.NewMemoryEventStore(nil),
	})
	v.stateless = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return v.srv }, &mcp.StreamableHTTPOptions{
		Logger:    sdkLog,
		Stateless: true,
		// The request's POST is the whole request: when the agent lets go
		// of it, its call is cancelled.
		PropagateRequestCancellation: true,
		MaxRequestBodyBytes:          wire.MaxInboundFrame,
	})
	v.stopWatch = v.user.Watch(v.changed)
	for _, st := range v.user.Servers() {
		v.pending[st.ID] = true
	}
	v.syncPending()
	go v.run()
	return v
}

// changed notes that server id changed; it runs under the session's lock.
func (v *view) changed(id string) {
	v.mu.Lock()
	v.pending[id] = true
	v.mu.Unlock()
	select {
	case v.kick <- struct{}{}:
	default:
	}
}

// setGrant takes the key's current grant; a changed scope syncs every
// server again.
func (v *view) setGrant(g agentkeys.Grant) {
	old := v.grant.Swap(&g)
	if old.SameScope(g) {
		return
	}
	servers := v.user.Servers() // before v.mu: the session calls changed under its lock
	v.mu.Lock()
	for _, st := range servers {
		v.pending[st.ID] = true
	}
	for id := range v.shown {
		v.pending[id] = true
	}
	v.mu.Unlock()
	v.syncPending()
}

// run syncs changed servers until the view closes, gathering a burst of
// changes into one sync.
func (v *view) run() {
	defer close(v.done)
	for {
		select {
		case <-v.ctx.Done():
			return
		case <-v.kick:
		}
		t := time.NewTimer(syncDelay)
		select {
		case <-v.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		v.syncPending()
	}
}

// expireAt arms the view to run expire at the expiry of its grant (zero:
// never), replacing an earlier arming: a live session, its open streams
// included, ends when its key does, not merely its next request.
func (v *view) expireAt(at time.Time, expire func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if at.Equal(v.expiresAt) && (v.expiry != nil || at.IsZero()) {
		return
	}
	if v.expiry != nil {
		v.expiry.Stop()
		v.expiry = nil
	}
	v.expiresAt = at
	if !at.IsZero() {
		v.expiry = time.AfterFunc(time.Until(at), expire)
	}
}

// live reports whether the view serves: it is not closed, nor ending.
func (v *view) live() bool {
	return v.ctx.Err() == nil && !v.ending.Load()
}

// close ends the view's sessions and stops its syncing; later calls do
// nothing.
func (v *view) close() {
	v.closeOnce.Do(v.closeNow)
}

func (v *view) closeNow() {
	v.mu.Lock()
	if v.expiry != nil {
		v.expiry.Stop()
	}
	v.mu.Unlock()
	v.stopWatch()
	v.cancel()
	<-v.done
	for ss := range v.srv.Sessions() {
		ss.Close()
	}
	v.mu.Lock()
	logs := v.logs
	v.logs = map[string]heard{}
	subs := v.subs
	v.subs = map[string]subscription{}
	v.mu.Unlock()
	for _, h := range logs { // outside v.mu: stopping tells the server
		h.stop()
	}
	for _, sub := range subs {
		v.release(sub)
	}
}

// syncPending syncs the servers that changed, one at a time.
func (v *view) syncPending() {
	v.syncing.Lock()
	defer v.syncing.Unlock()
	v.mu.Lock()
	ids := slices.Sorted(maps.Keys(v.pending))
	clear(v.pending)
	v.mu.Unlock()
	for _, id := range ids {
		v.sync(id)
	}
}

// state returns the current state of server id.
func (v *view) state(id string) (wire.Server, bool) {
	for _, st := range v.user.Servers() {
		if st.ID == id {
			return st, true
		}
	}
	return wire.Server{}, false
}

// connection returns the live connection of server id.
func (v *view) connection(id string) (upstream, error) {
	o, ok := v.user.Server(id)
	if !ok {
		return nil, wire.NewError(wire.CodeNotFound, "no such server")
	}
	return o.Connection()
}

// sync makes what server id has on the view match the server: its lists
// when it is ready and in scope, nothing otherwise. Syncs run one at a
// time (v.syncing).
func (v *view) sync(id string) {
	want := &exposure{}
	st, ok := v.state(id)
	grant := v.grant.Load()
	if v.only == id && (!ok || !grant.AllowsServer(id)) && !v.ending.Swap(true) {
		// A server's endpoint without its server: its sessions end, and the
		// key's next request there gets 404. Apart, since closing waits for
		// the syncing.
		go v.g.retire(viewKey{key: v.key, only: v.only}, v, "its server was removed or left the key's scope")
	}
	var live upstream
	if ok && st.State == wire.StateReady && grant.AllowsServer(id) && (v.only == "" || v.only == id) {
		if o, found := v.user.Server(id); found {
			if up, err := o.Connection(); err == nil {
				want = v.list(id, o, *grant)
				live = up
			}
		}
	}
	v.hear(id, live)
	v.mu.Lock()
	have := v.shown[id]
	if have == nil {
		have = &exposure{}
	}
	v.shown[id] = want
	v.mu.Unlock()
	v.apply(id, have, want)
}

// list is what server id exposes on the view, within grant: its lists as
// the server sent them, from the last discovery of its owner o.
func (v *view) list(id string, o *session.Server, grant agentkeys.Grant) *exposure {
	lists, caps := o.Lists()
	e := &exposure{}
	if lists == nil || caps == nil {
		return e
	}
	if caps.Tools != nil && v.showsTools() {
		names := exposedNames(id, itemNames(lists.Tools, func(t *mcp.Tool) string { return t.Name }))
		e.tools = map[string]item{}
		for _, t := range lists.Tools {
			agg := names[t.Name]
			ui := mcpwire.ToolUI(t.Meta)
			if !(wire.Tool{UI: ui}).ForModel() || !grant.AllowsTool(id, t.Name, agg) {
				continue
			}
			out := *t
			out.Name = v.nameFor(agg, t.Name)
			out.Meta = v.toolMeta(id, t.Meta, ui)
			e.tools[out.Name] = item{name: t.Name, agg: agg, json: marshal(&out)}
		}
	}
	if caps.Prompts != nil {
		names := exposedNames(id, itemNames(lists.Prompts, func(p *mcp.Prompt) string { return p.Name }))
		e.prompts = map[string]item{}
		for _, p := range lists.Prompts {
			out := *p
			out.Name = v.nameFor(names[p.Name], p.Name)
			e.prompts[out.Name] = item{name: p.Name, json: marshal(&out)}
		}
	}
	if caps.Resources != nil {
		e.resources, e.templates = map[string]item{}, map[string]item{}
		for _, r := range lists.Resources {
			out := *r
			out.URI = v.uriFor(id, r.URI)
			e.resources[out.URI] = item{name: r.URI, json: marshal(&out)}
		}
		for _, t := range lists.Templates {
			out := *t
			out.URITemplate = v.uriFor(id, t.URITemplate)
			e.templates[out.URITemplate] = item{name: t.URITemplate, json: marshal(&out)}
		}
	}
	return e
}

// nameFor is the name the view shows for a tool or prompt: agg on the
// aggregate endpoint, the server's own on a server's endpoint.
func (v *view) nameFor(agg, own string) string {
	if v.only != "" {
		return own
	}
	return agg
}

// toolMeta is the _meta the view shows for a tool whose own is meta: its
// App ui as the relay read it, its resourceUri as the view names the
// server's resources; the deprecated flat key goes.
func (v *view) toolMeta(server string, meta mcp.Meta, ui *wire.ToolUI) mcp.Meta {
	if meta["ui"] == nil && meta["ui/resourceUri"] == nil {
		return meta
	}
	out := maps.Clone(meta)
	delete(out, "ui/resourceUri")
	delete(out, "ui")
	if ui != nil {
		shown := map[string]any{}
		if ui.ResourceURI != "" {
			shown["resourceUri"] = v.uriFor(server, ui.ResourceURI)
		}
		if len(ui.Visibility) > 0 {
			shown["visibility"] = ui.Visibility
		}
		out["ui"] = shown
	}
	return out
}

// uriFor is the URI the view shows for a server's uri.
func (v *view) uriFor(server, uri string) string {
	if v.only != "" {
		return uri
	}
	return exposedURI(server, uri)
}

// apply moves srv from have to want for server id: removes what went, adds
// what is new or changed. An item the go-sdk refuses is left out and logged.
func (v *view) apply(id string, have, want *exposure) {
	if gone := missing(have.tools, want.tools); len(gone) > 0 {
		v.srv.RemoveTools(gone...)
	}
	if gone := missing(have.prompts, want.prompts); len(gone) > 0 {
		v.srv.RemovePrompts(gone...)
	}
	if gone := missing(have.resources, want.resources); len(gone) > 0 {
		v.srv.RemoveResources(gone...)
	}
	if gone := missing(have.templates, want.templates); len(gone) > 0 {
		v.srv.RemoveResourceTemplates(gone...)
	}
	for name, it := range changedItems(have.tools, want.tools) {
		var t mcp.Tool
		if v.decodeTool(id, it.json, &t) {
			v.guard(id, name, func() { v.srv.AddTool(&t, v.callTool(id, it.name, it.agg)) })
		}
	}
	for name, it := range changedItems(have.prompts, want.prompts) {
		var p mcp.Prompt
		if v.decode(id, it.json, &p) {
			v.guard(id, name, func() { v.srv.AddPrompt(&p, v.getPrompt(id, it.name)) })
		}
	}
	for uri, it := range changedItems(have.resources, want.resources) {
		var r mcp.Resource
		if v.decode(id, it.json, &r) {
			v.guard(id, uri, func() { v.srv.AddResource(&r, v.readResource(id)) })
		}
	}
	for uri, it := range changedItems(have.templates, want.templates) {
		var t mcp.ResourceTemplate
		if v.decode(id, it.json, &t) {
			v.guard(id, uri, func() { v.srv.AddResourceTemplate(&t, v.readResource(id)) })
		}
	}
}

// guard runs add, which panics on what the go-sdk judges invalid (a tool
// whose input schema is not an object, an unparsable URI).
func (v *view) guard(id, name string, add func()) {
	defer func() {
		if r := recover(); r != nil {
			v.g.log.Warn("agent gateway: left out an item the server listed", "server", id, "item", name, "error", fmt.Sprint(r))
		}
	}()
	add()
}

func (v *view) decode(id string, b []byte, x any) bool {
	if err := json.Unmarshal(b, x); err != nil {
		v.g.log.Warn("agent gateway: item does not decode", "server", id, "error", err)
		return false
	}
	return true
}

// decodeTool decodes a tool of the view into t, its schemas kept as the
// JSON they are: in the server's key order, as its connection lists them.
func (v *view) decodeTool(id string, b []byte, t *mcp.Tool) bool {
	var schemas struct {
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if !v.decode(id, b, t) || !v.decode(id, b, &schemas) {
		return false
	}
	if schemas.InputSchema != nil {
		t.InputSchema = schemas.InputSchema
	}
	if schemas.OutputSchema != nil {
		t.OutputSchema = schemas.OutputSchema
	}
	return true
}

// missing returns the keys of have that want lacks.
func missing(have, want map[string]item) []string {
	var out []string
	for k := range have {
		if _, ok := want[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

// changedItems returns the items of want that have lacks or differ.
func changedItems(have, want map[string]item) map[string]item {
	out := map[string]item{}
	for k, it := range want {
		if old, ok := have[k]; !ok || old.name != it.name || !bytes.Equal(old.json, it.json) {
			out[k] = it
		}
	}
	return out
}

func itemNames[T any](items []T, name func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = name(it)
	}
	return out
}

func marshal(x any) []byte {
	b, _ := json.Marshal(x) // MCP objects decoded from JSON encode again
	return b
}

// agentSessionLog is the go-sdk's log of the agents' sessions: its messages
// ("server session connected") would read as if about the person's servers,
// so each says it is about an agent's session.
type agentSessionLog struct{ slog.Handler }

func (h agentSessionLog) Handle(ctx context.Context, r slog.Record) error {
	r.Message = "agent session: " + r.Message
	return h.Handler.Handle(ctx, r)
}

func (h agentSessionLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return agentSessionLog{h.Handler.WithAttrs(attrs)}
}

func (h agentSessionLog) WithGroup(name string) slog.Handler {
	return agentSessionLog{h.Handler.WithGroup(name)}
}
