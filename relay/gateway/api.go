package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Routes of the plain HTTP tool API, for agents that do not speak MCP.
const (
	ToolsPath    = "/api/tools"
	ToolCallPath = "/api/tools/call"
)

// Limits of the tool API.
const (
	maxCallBody   = 1 << 20 // bytes of a call's request body
	apiRate       = 10      // requests per second and key, sustained
	apiBurst      = 40      // requests per key at once
	maxDescrRunes = 4000    // characters of a tool description passed on
	maxToolName   = 300     // bytes of a tool's name as an agent sends it
)

// API serves [ToolsPath] and [ToolCallPath]: the user's tools in the shape
// function-calling APIs take, and calling one. It authenticates the same
// bearer credentials as /mcp, and a question a server asks during a call is
// asked in the person's dashboard, never of the agent.
type API struct {
	Auth     Authenticator
	Sessions *session.Manager
	Recorder Recorder // nil: calls are not logged
	// Origins admits browser requests (those with an Origin header); nil
	// refuses them all.
	Origins *authn.OriginPolicy
	Logger  *slog.Logger

	mu       sync.Mutex
	limiters map[string]*rate.Limiter         // per key id
	running  map[string]map[*callRun]struct{} // per key id, the calls in flight
}

// callRun is one call in flight, cancelled when its key is revoked.
type callRun struct{ cancel context.CancelFunc }

// Function is one tool as function-calling APIs take it.
type Function struct {
	Type     string      `json:"type"` // always "function"
	Function FunctionDef `json:"function"`
}

// FunctionDef names a tool ([ToolName]), says what it does and what its
// arguments are (the tool's JSON Schema).
type FunctionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// CallRequest is the body of a POST to [ToolCallPath].
type CallRequest struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// apiError is the body of every refusal.
type apiError struct {
	Error wire.Error `json:"error"`
}

// Register mounts the API's routes on mux.
func (a *API) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET "+ToolsPath, a.listTools)
	mux.HandleFunc("POST "+ToolCallPath, a.callTool)
}

// CloseKey cancels the calls in flight of key id (it was revoked).
func (a *API) CloseKey(id string) {
	a.mu.Lock()
	runs := a.running[id]
	delete(a.running, id)
	delete(a.limiters, id)
	a.mu.Unlock()
	for r := range runs {
		r.cancel()
	}
}

// authenticate checks Origin, the bearer credential and the key's rate; it
// answers the request itself when it refuses.
func (a *API) authenticate(w http.ResponseWriter, r *http.Request) (Grant, bool) {
	if r.Header.Get("Origin") != "" && (a.Origins == nil || !a.Origins.Allowed(r)) {
		writeError(w, http.StatusForbidden, wire.CodeBadRequest, "this origin may not use the tool API")
		return Grant{}, false
	}
	scheme, bearer, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || bearer == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
		writeError(w, http.StatusUnauthorized, "unauthorized", "send an agent key as Authorization: Bearer <key>")
		return Grant{}, false
	}
	g, err := a.Auth.Authenticate(r.Context(), strings.TrimSpace(bearer))
	if err != nil {
		if !errors.Is(err, ErrUnauthorized) && a.Logger != nil {
			a.Logger.Error("authenticate agent", "err", err)
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard", error="invalid_token"`)
		writeError(w, http.StatusUnauthorized, "unauthorized", ErrUnauthorized.Error())
		return Grant{}, false
	}
	if !a.limiter(g.KeyID).Allow() {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusTooManyRequests, "rate_limited", "too many requests with this key; slow down")
		return Grant{}, false
	}
	return g, true
}

func (a *API) limiter(key string) *rate.Limiter {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.limiters == nil {
		a.limiters = map[string]*rate.Limiter{}
	}
	l, ok := a.limiters[key]
	if !ok {
		l = rate.NewLimiter(apiRate, apiBurst)
		a.limiters[key] = l
	}
	return l
}

// listTools answers GET /api/tools. Query parameters narrow the list, each
// repeatable: server (an id), server_name, state (a server state such as
// ready).
func (a *API) listTools(w http.ResponseWriter, r *http.Request) {
	g, ok := a.authenticate(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	ids, names, states := q["server"], q["server_name"], q["state"]
	snap, _ := a.Sessions.Session(g.User).Snapshot()
	out := []Function{}
	for _, srv := range snap.Servers {
		switch {
		case !g.AllowsServer(srv.ID),
			len(ids) > 0 && !slices.Contains(ids, srv.ID),
			len(names) > 0 && !slices.Contains(names, srv.Name),
			len(states) > 0 && !slices.Contains(states, string(srv.State)):
			continue
		}
		for _, t := range srv.Tools {
			if g.AllowsTool(srv.ID, t.Name) {
				out = append(out, function(srv, t))
			}
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// function is tool t of srv as a function definition.
func function(srv wire.Server, t wire.Tool) Function {
	descr := t.Description
	if descr == "" {
		descr = t.Title
	}
	descr = wire.Sanitize(fmt.Sprintf("[%s] %s", srv.Name, descr), maxDescrRunes)
	params := t.InputSchema
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return Function{Type: "function", Function: FunctionDef{Name: ToolName(srv.ID, t.Name), Description: descr, Parameters: params}}
}

// callTool answers POST /api/tools/call with the tool's result
// (wire.CallToolResult: content, structuredContent, isError).
func (a *API) callTool(w http.ResponseWriter, r *http.Request) {
	g, ok := a.authenticate(w, r)
	if !ok {
		return
	}
	var req CallRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxCallBody))
	if err := dec.Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, wire.CodeBadRequest, "the body must be a JSON object {name, arguments} of at most 1 MiB")
		return
	}
	if string(req.Arguments) == "null" {
		req.Arguments = nil
	}
	if len(req.Arguments) > 0 && req.Arguments[0] != '{' {
		writeError(w, http.StatusBadRequest, wire.CodeBadRequest, "arguments must be a JSON object")
		return
	}
	server, tool, ok := SplitToolName(req.Name)
	if !ok || len(req.Name) > maxToolName || wire.Sanitize(req.Name, maxToolName) != req.Name {
		writeError(w, http.StatusNotFound, wire.CodeNotFound, "no such tool (names are <server-id>__<tool>, as GET /api/tools lists them)")
		return
	}
	rec := CallRecord{User: g.User, Agent: g.Agent, KeyID: g.KeyID, Server: server, Tool: tool, Start: time.Now()}
	s := a.Sessions.Session(g.User)
	if !g.AllowsTool(server, tool) {
		a.record(r.Context(), "", rec, OutcomeDenied)
		writeError(w, http.StatusForbidden, "denied", "this key may not call this tool")
		return
	}
	if !hasTool(s, server, tool) {
		writeError(w, http.StatusNotFound, wire.CodeNotFound, "no such tool on a ready server")
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	run := a.track(g.KeyID, cancel)
	defer a.untrack(g.KeyID, run)
	running := a.started(rec)
	res, asked, err := s.CallTool(ctx, server, tool, req.Arguments)
	rec.Asked = asked
	switch {
	case err != nil && ctx.Err() != nil:
		a.record(r.Context(), running, rec, OutcomeCancelled)
		writeError(w, http.StatusServiceUnavailable, wire.CodeCancelled, "the call was cancelled")
	case err != nil:
		a.record(r.Context(), running, rec, OutcomeFailed)
		we := wireError(err)
		writeError(w, statusOf(we.Code), we.Code, we.Message)
	case res.IsError:
		a.record(r.Context(), running, rec, OutcomeToolError)
		writeJSON(w, http.StatusOK, res)
	default:
		a.record(r.Context(), running, rec, OutcomeOK)
		writeJSON(w, http.StatusOK, res)
	}
}

// hasTool reports whether server id is ready and lists tool.
func hasTool(s *session.Session, id, tool string) bool {
	snap, _ := s.Snapshot()
	srv := snap.ServerByID(id)
	return srv != nil && srv.State == wire.StateReady &&
		slices.ContainsFunc(srv.Tools, func(t wire.Tool) bool { return t.Name == tool })
}

// LiveRecorder is a [Recorder] that also shows calls while they run; *Log
// is one.
type LiveRecorder interface {
	Recorder
	// Started shows c as running and returns the id to finish it with.
	Started(c CallRecord) string
	// Finish records c, which replaces the running call id.
	Finish(ctx context.Context, running string, c CallRecord)
}

// started shows c as running, when the recorder can.
func (a *API) started(c CallRecord) string {
	if lr, ok := a.Recorder.(LiveRecorder); ok {
		return lr.Started(c)
	}
	return ""
}

// record records c, ended with outcome, in place of the running call.
func (a *API) record(ctx context.Context, running string, c CallRecord, outcome wire.Outcome) {
	c.Outcome, c.Duration = outcome, time.Since(c.Start)
	if lr, ok := a.Recorder.(LiveRecorder); ok {
		lr.Finish(ctx, running, c)
	} else if a.Recorder != nil {
		a.Recorder.Record(ctx, c)
	}
}

func (a *API) track(key string, cancel context.CancelFunc) *callRun {
	run := &callRun{cancel: cancel}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running == nil {
		a.running = map[string]map[*callRun]struct{}{}
	}
	if a.running[key] == nil {
		a.running[key] = map[*callRun]struct{}{}
	}
	a.running[key][run] = struct{}{}
	return run
}

func (a *API) untrack(key string, run *callRun) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.running[key], run)
	if len(a.running[key]) == 0 {
		delete(a.running, key)
	}
}

// wireError is err as an agent may see it: a wire error passes, anything
// else is internal.
func wireError(err error) *wire.Error {
	var we *wire.Error
	if errors.As(err, &we) {
		return we
	}
	return wire.NewError(wire.CodeInternal, "internal error; see the relay log")
}

// statusOf maps a wire error code to an HTTP status.
func statusOf(code wire.Code) int {
	switch code {
	case wire.CodeBadRequest:
		return http.StatusBadRequest
	case wire.CodeNotFound:
		return http.StatusNotFound
	case wire.CodeNotReady:
		return http.StatusServiceUnavailable
	case wire.CodeUpstream, wire.CodeTooLarge:
		return http.StatusBadGateway
	}
	return http.StatusInternalServerError
}

func writeError(w http.ResponseWriter, status int, code wire.Code, message string) {
	writeJSON(w, status, apiError{Error: wire.Error{Code: code, Message: message}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
