package gateway_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// waitFor bounds every wait of these tests.
const waitFor = 10 * time.Second

// Protocol eras an agent may speak.
var eras = []string{"2025-11-25", "2026-07-28"}

// keys is an Authenticator over SHA-256 hashes of keys, as a store keeps them.
type keys struct {
	mu     sync.Mutex
	grants map[[32]byte]agentkeys.Grant
}

func (k *keys) Authenticate(_ context.Context, bearer string) (agentkeys.Grant, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	g, ok := k.grants[sha256.Sum256([]byte(bearer))]
	if !ok {
		return agentkeys.Grant{}, agentkeys.ErrUnauthorized
	}
	return g, nil
}

func (k *keys) put(key string, g agentkeys.Grant) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.grants == nil {
		k.grants = map[[32]byte]agentkeys.Grant{}
	}
	k.grants[sha256.Sum256([]byte(key))] = g
}

func (k *keys) revoke(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.grants, sha256.Sum256([]byte(key)))
}

// records is an activity log that keeps, in memory, the agents' calls the
// sessions record.
type records struct {
	mu   sync.Mutex
	recs []wire.AgentCall
}

// Append implements session.ActivityLog.
func (r *records) Append(_ string, c wire.AgentCall, shown func(wire.AgentCall)) {
	r.mu.Lock()
	r.recs = append(r.recs, c)
	r.mu.Unlock()
	shown(c)
}

func (r *records) all() []wire.AgentCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]wire.AgentCall(nil), r.recs...)
}

// relay is the relay's sessions with real connections, and the gateway on
// a loopback HTTP server.
type relay struct {
	t    testing.TB
	m    *session.Manager
	g    *gateway.Gateway
	url  string // the base URL of the gateway and the tool API
	api  *gateway.API
	keys *keys
	recs *records
}

func newRelay(t testing.TB, asks broker.Config) *relay {
	t.Helper()
	return newRelayLimited(t, asks, 0)
}

// newRelayLimited is newRelay with a rate limit per key (0: the default).
func newRelayLimited(t testing.TB, asks broker.Config, limit rate.Limit) *relay {
	t.Helper()
	return newRelayWith(t, session.Config{Asks: asks}, gateway.Config{Limits: gateway.NewLimits(limit, int(limit))})
}

// newRelayWith is newRelayLimited with the session manager's configuration
// (its store, dialer and logger are the harness's) and the gateway's keys'
// budget (gw.Limits, shared with the tool API; nil: the default), session
// cap (gw.MaxSessions), code-mode limits (gw.CodeLimits) and log
// (gw.Logger; nil: discarded).
func newRelayWith(t testing.TB, cfg session.Config, gw gateway.Config) *relay {
	t.Helper()
	limits := gw.Limits
	if limits == nil {
		limits = gateway.NewLimits(0, 0)
	}
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	cfg.Store, cfg.Logger = st, logger
	cfg.Dial = func(d session.Dial, emit func(conn.State)) session.Connection {
		reg := d.Reg
		return conn.Start(conn.Config{
			ID: reg.ID, Name: reg.Name, URL: reg.URL, Logger: logger, HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0),
			HealthInterval: time.Minute, RetryMin: 50 * time.Millisecond, RetryMax: 400 * time.Millisecond,
			Asker: d.Asker, Modes: d.Modes, Transport: wire.Transport(reg.Transport),
		}, emit)
	}
	recs := &records{}
	cfg.Activity = recs
	m := session.NewManager(cfg)
	r := &relay{t: t, m: m, keys: &keys{}, recs: recs}
	gwLog := logger
	if gw.Logger != nil {
		gwLog = gw.Logger
	}
	r.g = gateway.New(gateway.Config{Sessions: m, Auth: r.keys, Logger: gwLog, WaitingEvery: 50 * time.Millisecond,
		Limits: limits, MaxSessions: gw.MaxSessions, CodeLimits: gw.CodeLimits, TaskAfter: gw.TaskAfter})
	r.api = &gateway.API{Auth: r.keys, Sessions: m, Logger: logger, Limits: limits}
	mux := http.NewServeMux()
	mux.Handle(gateway.Path, r.g)
	mux.Handle(gateway.ServerPath, r.g)
	mux.Handle(gateway.CodePath, r.g)
	r.api.Register(mux)
	hs := httptest.NewServer(mux)
	r.url = hs.URL
	t.Cleanup(func() {
		r.g.Close()
		hs.CloseClientConnections()
		hs.Close()
		m.Close()
		st.Close()
	})
	return r
}

// add registers the server at url for user and waits until it is ready.
func (r *relay) add(user, name, url string) string {
	r.t.Helper()
	s := r.m.Session(user)
	res, err := s.AddServer(context.Background(), name, url)
	if err != nil {
		r.t.Fatal(err)
	}
	ready := make(chan struct{}, 1)
	stop := s.Watch(func(string) {
		select {
		case ready <- struct{}{}:
		default:
		}
	})
	defer stop()
	deadline := time.After(waitFor)
	for {
		for _, st := range s.Servers() {
			if st.ID == res.ID && st.State == wire.StateReady {
				return res.ID
			}
		}
		select {
		case <-ready:
		case <-deadline:
			r.t.Fatalf("%s not ready within %v", name, waitFor)
		}
	}
}

// agent is an agent's MCP client session, with what it heard.
type agent struct {
	cs       *mcp.ClientSession
	changed  chan struct{} // tools/list_changed, buffered
	progress chan *mcp.ProgressNotificationParams
	logs     chan *mcp.LoggingMessageParams
	wire     *tap // every byte the agent received
}

// connect connects an agent with key to path, speaking era.
func (r *relay) connect(key, path, era string) *agent {
	r.t.Helper()
	a, err := r.dial(key, path, era)
	if err != nil {
		r.t.Fatal(err)
	}
	return a
}

func (r *relay) dial(key, path, era string) (*agent, error) {
	a := &agent{changed: make(chan struct{}, 16), progress: make(chan *mcp.ProgressNotificationParams, 64), logs: make(chan *mcp.LoggingMessageParams, 64)}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case a.changed <- struct{}{}:
			default:
			}
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			select {
			case a.logs <- req.Params:
			default:
			}
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case a.progress <- req.Params:
			default:
			}
		},
	})
	a.wire = &tap{base: http.DefaultTransport, key: key}
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.url + path, HTTPClient: &http.Client{Transport: a.wire}},
		&mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		return nil, err
	}
	r.t.Cleanup(func() { cs.Close() })
	a.cs = cs
	return a, nil
}

// tap is the agent's RoundTripper: it adds the key and records every byte
// of every response.
type tap struct {
	base http.RoundTripper
	key  string
	mu   sync.Mutex
	got  bytes.Buffer
}

func (t *tap) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+t.key)
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &tapped{ReadCloser: resp.Body, t: t}
	return resp, nil
}

// received returns every byte received so far.
func (t *tap) received() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.got.String()
}

type tapped struct {
	io.ReadCloser
	t *tap
}

func (b *tapped) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.t.mu.Lock()
	b.t.got.Write(p[:n])
	b.t.mu.Unlock()
	return n, err
}

// toolNames lists the agent's tools by name.
func (a *agent) toolNames(t *testing.T) map[string]*mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	out := map[string]*mcp.Tool{}
	for tool, err := range a.cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = tool
	}
	return out
}

// call calls tool with args and returns its result's first text.
func (a *agent) call(t *testing.T, tool string, args any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return text(res), res.IsError
}

// text is the first text content of res.
func text(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	b, _ := json.Marshal(res)
	return string(b)
}

// serveUpstream serves srv over Streamable HTTP on loopback and returns its
// URL; the cleanup ends its sessions first, so that the relay's connection
// closes before the listener.
func serveUpstream(t testing.TB, srv *mcp.Server) string {
	t.Helper()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(func() {
		for ss := range srv.Sessions() {
			ss.Close()
		}
		hs.CloseClientConnections()
		hs.Close()
	})
	return hs.URL
}
