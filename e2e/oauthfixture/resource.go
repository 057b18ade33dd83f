package oauthfixture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Where the resource publishes its protected resource metadata.
const (
	PRMPathBased = "path" // /.well-known/oauth-protected-resource/mcp, the default
	PRMRoot      = "root" // /.well-known/oauth-protected-resource
	PRMNone      = "none" // nowhere
)

// Paths of the resource.
const (
	MCPPath      = "/mcp"
	SSEPath      = "/sse"
	prmWellKnown = "/.well-known/oauth-protected-resource"
	// maxRPCBytes bounds the JSON-RPC body the scope check reads.
	maxRPCBytes = 4 << 20
)

// Tools of the resource's MCP server.
const (
	ToolEcho  = "echo"  // returns its text argument
	ToolAdmin = "admin" // returns "done"; give it scopes in ResourceConfig.ToolScopes
)

// ResourceConfig configures a [Resource].
type ResourceConfig struct {
	AuthServer *AuthServer // whose tokens are accepted; required
	// Scopes are required of every request by auth.RequireBearerToken; the
	// 401 challenge names them unless NoChallengeScope.
	Scopes           []string
	NoChallengeScope bool
	// StepUpScopes are required of every request too, but refused with 403
	// insufficient_scope naming them (RequireBearerToken's own 403 names no
	// error, so a client does not step up on it).
	StepUpScopes []string
	// ScopesSupported are published in the metadata (none when nil).
	ScopesSupported []string
	// ToolScopes are required, besides the others, to call a tool: without
	// them the call is refused with 403 insufficient_scope naming them.
	ToolScopes map[string][]string
	// PRM is PRMPathBased (when empty), PRMRoot or PRMNone.
	PRM string
	// NoChallengeMetadata leaves resource_metadata out of the challenge.
	NoChallengeMetadata bool
	// Resource overrides the resource the metadata names (a mismatch).
	Resource string
}

// ResourceRequest is a request the resource received.
type ResourceRequest struct {
	Method, Path string
	Token        string // the bearer token sent, if any
	Status       int    // the status answered by the auth layers; 0 when passed on
}

// Resource is a protected fixture MCP server. Its methods are safe for
// concurrent use.
type Resource struct {
	cfg  ResourceConfig
	base string
	http *http.Server
	done chan struct{}

	mu       sync.Mutex
	requests []ResourceRequest
}

// StartResource starts a protected MCP server on a free 127.0.0.1 port and
// stops it when the test ends.
func StartResource(t testing.TB, cfg ResourceConfig) *Resource {
	t.Helper()
	r, err := NewResource(cfg)
	if err != nil {
		t.Fatalf("start fixture resource server: %v", err)
	}
	t.Cleanup(r.Close)
	return r
}

// NewResource starts a protected MCP server on a free 127.0.0.1 port;
// Close stops it.
func NewResource(cfg ResourceConfig) (*Resource, error) {
	if cfg.AuthServer == nil {
		return nil, fmt.Errorf("a resource needs an authorization server")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	r := &Resource{cfg: cfg, base: "http://" + ln.Addr().String(), done: make(chan struct{})}
	server := newServer()
	getServer := func(*http.Request) *mcp.Server { return server }
	mux := http.NewServeMux()
	mux.Handle(MCPPath, r.protect(MCPPath, mcp.NewStreamableHTTPHandler(getServer, nil)))
	mux.Handle(SSEPath, r.protect(SSEPath, mcp.NewSSEHandler(getServer, nil)))
	for _, endpoint := range []string{MCPPath, SSEPath} {
		path := r.metadataPath(endpoint)
		if path == "" || (endpoint == SSEPath && cfg.PRM == PRMRoot) {
			continue
		}
		resource := r.base + endpoint
		if cfg.PRM == PRMRoot {
			resource = r.base
		}
		if cfg.Resource != "" {
			resource = cfg.Resource
		}
		mux.Handle("GET "+path, r.recording(auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:             resource,
			AuthorizationServers: []string{cfg.AuthServer.Issuer()},
			ScopesSupported:      cfg.ScopesSupported,
			ResourceName:         "fixture",
		})))
	}
	mux.Handle("/", r.recording(http.NotFoundHandler()))
	r.http = &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout}
	go func() {
		defer close(r.done)
		r.http.Serve(ln)
	}()
	return r, nil
}

// protect puts the bearer check and the scope check before the MCP
// endpoint at path.
func (r *Resource) protect(path string, h http.Handler) http.Handler {
	opts := &auth.RequireBearerTokenOptions{}
	if !r.cfg.NoChallengeScope {
		opts.Scopes = r.cfg.Scopes
	}
	if !r.cfg.NoChallengeMetadata {
		opts.ResourceMetadataURL = r.metadataURL(path)
	}
	return r.recording(auth.RequireBearerToken(r.verify, opts)(r.scopes(path, h)))
}

// newServer is the MCP server behind the authorization.
func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "oauth-fixture", Version: "1.0.0"}, nil)
	type echoArgs struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: ToolEcho, Description: "Echo text."}, func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: ToolAdmin, Description: "Needs more scope."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	return s
}

// Close stops the server and its connections.
func (r *Resource) Close() {
	r.http.Close()
	<-r.done
}

// URL is the Streamable HTTP endpoint.
func (r *Resource) URL() string { return r.base + MCPPath }

// SSEURL is the legacy SSE endpoint.
func (r *Resource) SSEURL() string { return r.base + SSEPath }

// MetadataURL is where the protected resource metadata of the Streamable
// HTTP endpoint is ("" for nowhere).
func (r *Resource) MetadataURL() string { return r.metadataURL(MCPPath) }

// metadataURL is where the metadata of the endpoint at path is.
func (r *Resource) metadataURL(path string) string {
	if p := r.metadataPath(path); p != "" {
		return r.base + p
	}
	return ""
}

// metadataPath is the path of the endpoint's metadata, "" for none.
func (r *Resource) metadataPath(endpoint string) string {
	switch r.cfg.PRM {
	case PRMRoot:
		return prmWellKnown
	case PRMNone:
		return ""
	}
	return prmWellKnown + endpoint
}

// Requests returns the requests received, in order.
func (r *Resource) Requests() []ResourceRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// verify accepts the authorization server's live tokens issued for this
// resource (RFC 8707 audience).
func (r *Resource) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	info, ok := r.cfg.AuthServer.Verify(token)
	if !ok || (info.Resource != r.URL() && info.Resource != r.base && info.Resource != r.SSEURL()) {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{Scopes: info.Scopes, Expiration: info.Expires, UserID: info.ClientID}, nil
}

// scopes refuses, with 403 insufficient_scope, a request whose token lacks
// StepUpScopes, or a tools/call whose tool needs ToolScopes the token lacks.
// The challenge names every scope the request needs.
func (r *Resource) scopes(path string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		info := auth.TokenInfoFromContext(req.Context())
		need := slices.Concat(r.cfg.Scopes, r.cfg.StepUpScopes)
		if req.Method == http.MethodPost && len(r.cfg.ToolScopes) > 0 {
			body, err := io.ReadAll(io.LimitReader(req.Body, maxRPCBytes))
			if err != nil {
				http.Error(w, "cannot read the request", http.StatusBadRequest)
				return
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			need = append(need, r.cfg.ToolScopes[toolCalled(body)]...)
		}
		var granted []string
		if info != nil {
			granted = info.Scopes
		}
		for _, s := range need {
			if !slices.Contains(granted, s) {
				params := []string{`error="insufficient_scope"`, fmt.Sprintf("scope=%q", strings.Join(need, " "))}
				if mu := r.metadataURL(path); mu != "" && !r.cfg.NoChallengeMetadata {
					params = append(params, fmt.Sprintf("resource_metadata=%q", mu))
				}
				w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
				http.Error(w, "insufficient scope", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, req)
	})
}

// toolCalled returns the tool a JSON-RPC tools/call names, "" otherwise.
func toolCalled(body []byte) string {
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" {
		return ""
	}
	return msg.Params.Name
}

// recording notes each request when its answer starts, with the status
// the layers below answered with (0 when they passed it on to MCP).
func (r *Resource) recording(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		token, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
		rec := ResourceRequest{Method: req.Method, Path: req.URL.Path, Token: token}
		sw := &statusWriter{ResponseWriter: w, record: func(status int) {
			rec.Status = status
			r.mu.Lock()
			r.requests = append(r.requests, rec)
			r.mu.Unlock()
		}}
		next.ServeHTTP(sw, req)
		sw.noteStatus(0)
	})
}

// statusWriter records the request once, at its first header, write or end.
type statusWriter struct {
	http.ResponseWriter
	record func(status int)
	once   sync.Once
}

func (w *statusWriter) noteStatus(code int) {
	w.once.Do(func() {
		if code < http.StatusBadRequest {
			code = 0
		}
		w.record(code)
	})
}

func (w *statusWriter) WriteHeader(code int) {
	w.noteStatus(code)
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.noteStatus(0)
	return w.ResponseWriter.Write(b)
}

// Flush lets event streams through.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
