package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
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
	maxDescrRunes = 4000    // characters of a tool description passed on
	maxToolName   = 300     // bytes of a tool's name as an agent sends it
)

// API serves [ToolsPath] and [ToolCallPath]: the user's tools in the shape
// function-calling APIs take, and calling one. It authenticates the same
// bearer credentials as /mcp, and a question a server asks during a call is
// asked in the person's dashboard, never of the agent.
type API struct {
	Auth     agentkeys.Authenticator
	Sessions *session.Manager
	// Origins admits browser requests (those with an Origin header); nil
	// refuses them all.
	Origins *authn.OriginPolicy
	Logger  *slog.Logger
	// Limits is the request budget of each key, shared with the MCP
	// endpoint ([Config.Limits]); nil gives the API a budget of its own.
	Limits *Limits

	calls     atomic.Uint64 // calls made, to tell their asks apart
	mu        sync.Mutex
	ownLimits *Limits                          // when Limits is nil
	running   map[string]map[*callRun]struct{} // per key id, the calls in flight
}

// callRun is one call in flight, cancelled when its key is revoked.
type callRun struct{ cancel context.CancelCauseFunc }

// Why a call of the tool API was cancelled by the relay: its key stopped
// working while it ran. Calls through /mcp end the same way, with their
// sessions (see [Gateway.CloseKey]).
var (
	errKeyRevoked = errors.New("the agent key was revoked during the call; the call was cancelled")
	errKeyExpired = errors.New("the agent key expired during the call; the call was cancelled")
)

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
	a.mu.Unlock()
	a.limits().Forget(id)
	for r := range runs {
		r.cancel(errKeyRevoked)
	}
}

// authenticate checks Origin, the bearer credential and the key's rate; it
// answers the request itself when it refuses.
func (a *API) authenticate(w http.ResponseWriter, r *http.Request) (agentkeys.Grant, bool) {
	if r.Header.Get("Origin") != "" && (a.Origins == nil || !a.Origins.Allowed(r)) {
		writeError(w, http.StatusForbidden, codeOrigin, "this origin may not use the tool API")
		return agentkeys.Grant{}, false
	}
	scheme, bearer, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || bearer == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
		writeError(w, http.StatusUnauthorized, "unauthorized", "send an agent key as Authorization: Bearer <key>")
		return agentkeys.Grant{}, false
	}
	g, err := a.Auth.Authenticate(r.Context(), strings.TrimSpace(bearer))
	if err == nil && g.Resource != "" {
		err = agentkeys.ErrUnauthorized // an OAuth token is bound to its MCP endpoint
	}
	if err != nil {
		if !errors.Is(err, agentkeys.ErrUnauthorized) && a.Logger != nil {
			a.Logger.Error("authenticate agent", "err", err)
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard", error="invalid_token"`)
		writeError(w, http.StatusUnauthorized, "unauthorized", agentkeys.ErrUnauthorized.Error())
		return agentkeys.Grant{}, false
	}
	if !a.limits().Allow(g.KeyID) {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusTooManyRequests, "rate_limited", "too many requests with this key; slow down")
		return agentkeys.Grant{}, false
	}
	return g, true
}

// limits is the budget the API spends.
func (a *API) limits() *Limits {
	if a.Limits != nil {
		return a.Limits
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ownLimits == nil {
		a.ownLimits = NewLimits(0, 0)
	}
	return a.ownLimits
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
		names := exposedNames(srv.ID, itemNames(srv.Tools, func(t wire.Tool) string { return t.Name }))
		for _, t := range srv.Tools {
			if t.ForModel() && g.AllowsTool(srv.ID, t.Name, names[t.Name]) {
				out = append(out, function(srv, t, names[t.Name]))
			}
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// function is tool t of srv, exposed as name, as a function definition.
func function(srv wire.Server, t wire.Tool, name string) Function {
	descr := t.Description
	if descr == "" {
		descr = t.Title
	}
	descr = wire.Sanitize(fmt.Sprintf("[%s] %s", srv.Name, descr), maxDescrRunes)
	params := t.InputSchema
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return Function{Type: "function", Function: FunctionDef{Name: name, Description: descr, Parameters: params}}
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
		status, code, msg := bodyRefusal(err)
		writeError(w, status, code, msg)
		return
	}
	if string(req.Arguments) == "null" {
		req.Arguments = nil
	}
	if len(req.Arguments) > 0 && req.Arguments[0] != '{' {
		writeError(w, http.StatusBadRequest, wire.CodeBadRequest, "arguments must be a JSON object")
		return
	}
	s := a.Sessions.Session(g.User)
	server, tool, ok := a.resolve(s, req.Name)
	o, found := s.Server(server)
	if !ok || !found || len(req.Name) > maxToolName {
		writeError(w, http.StatusNotFound, wire.CodeNotFound, "no such tool on a ready server (names are as GET /api/tools lists them)")
		return
	}
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	if !g.Expires.IsZero() { // the call ends with its key, as the key's MCP sessions do
		expiry := time.AfterFunc(time.Until(g.Expires), func() { cancel(errKeyExpired) })
		defer expiry.Stop()
	}
	run := a.track(g.KeyID, cancel)
	defer a.untrack(g.KeyID, run)
	agent := &session.Agent{Name: g.Agent, KeyID: g.KeyID, Label: "api-" + strconv.FormatUint(a.calls.Add(1), 10),
		Allowed: func() bool { return g.AllowsTool(server, tool, req.Name) }}
	raw, err := o.CallTool(ctx, session.Caller{Agent: agent}, &mcp.CallToolParams{Name: tool, Arguments: req.Arguments})
	var res *wire.CallToolResult
	if err == nil {
		res, err = o.ToolResult(tool, raw)
	}
	a.answerCall(w, ctx, res, err)
}

// answerCall answers a call of the tool API that ended with res or err
// (its context ctx).
func (a *API) answerCall(w http.ResponseWriter, ctx context.Context, res *wire.CallToolResult, err error) {
	switch {
	case errors.Is(err, session.ErrDenied):
		writeError(w, http.StatusForbidden, "denied", "this key may not call this tool")
	case errors.Is(err, session.ErrUnanswered):
		writeJSON(w, http.StatusOK, wire.CallToolResult{IsError: true, Content: []wire.Content{{Type: wire.ContentText, Text: err.Error()}}})
	case err != nil && ctx.Err() != nil:
		if cause := context.Cause(ctx); cause == errKeyRevoked || cause == errKeyExpired {
			w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard", error="invalid_token"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", cause.Error())
			return
		}
		writeError(w, http.StatusServiceUnavailable, wire.CodeCancelled, "the call was cancelled")
	case err != nil:
		we := wireError(err)
		writeJSON(w, statusOf(we.Code), apiError{Error: *we})
	default:
		writeJSON(w, http.StatusOK, res)
	}
}

// resolve returns the server and the tool's own name of a tool name as
// [ToolsPath] lists it, when that server is ready and lists the tool for
// models (not for its App only). It asks the name table of every ready
// server whose id the name starts with, not only the part before the first
// "__": a person may choose an id that holds "__".
func (a *API) resolve(s *session.Session, name string) (server, tool string, ok bool) {
	for _, srv := range s.Servers() {
		if srv.State != wire.StateReady || !strings.HasPrefix(name, srv.ID+nameSeparator) {
			continue
		}
		names := exposedNames(srv.ID, itemNames(srv.Tools, func(t wire.Tool) string { return t.Name }))
		for _, t := range srv.Tools {
			if names[t.Name] == name && t.ForModel() {
				return srv.ID, t.Name, true
			}
		}
	}
	return "", "", false
}

func (a *API) track(key string, cancel context.CancelCauseFunc) *callRun {
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
	if we, ok := mcpwire.Error(err); ok {
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
	case wire.CodeUpstream, wire.CodeTooLarge, wire.CodeConnectionLost, wire.CodeProtocol:
		return http.StatusBadGateway
	case wire.CodeTimeout:
		return http.StatusGatewayTimeout
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

// codeOrigin refuses a browser page of an origin not allowed.
const codeOrigin wire.Code = "forbidden_origin"

// bodyRefusal says why a call's body could not be read: too large, nested
// too deeply, not JSON, or not the object asked for.
func bodyRefusal(err error) (int, wire.Code, string) {
	var tooLarge *http.MaxBytesError
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, wire.CodeTooLarge, fmt.Sprintf("the body is over %d bytes (1 MiB)", tooLarge.Limit)
	case strings.Contains(err.Error(), "exceeded max depth"):
		return http.StatusBadRequest, wire.CodeBadRequest, "the body is nested too deeply"
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return http.StatusBadRequest, wire.CodeBadRequest, "the body is not JSON"
	}
	return http.StatusBadRequest, wire.CodeBadRequest, "the body must be a JSON object {name, arguments}"
}
