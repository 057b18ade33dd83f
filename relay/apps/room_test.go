package apps_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/relay/apps"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

const (
	user      = "ada"
	waitFor   = 10 * time.Second
	viewHTML  = "<!doctype html><p>Hello from the view</p>"
	relayHost = "http://127.0.0.1:8080"
	appsHost  = "http://localhost:9001"
	// testMaxResult is the relay's limit on an answer in these tests.
	testMaxResult = 64 << 10
)

// viewServer is a go-sdk server with views of each kind; reads counts the
// reads of ui://counted.
func viewServer(reads *atomic.Int32) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "views", Version: "1"}, nil)
	add := func(uri string, c *mcp.ResourceContents) {
		srv.AddResource(&mcp.Resource{URI: uri, Name: uri, MIMEType: c.MIMEType},
			func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				if uri == "ui://counted" {
					reads.Add(1)
				}
				out := *c
				out.URI = uri
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{&out}}, nil
			})
	}
	var many []any
	for i := range 40 {
		many = append(many, fmt.Sprintf("https://cdn%d.example", i))
	}
	add("ui://declared", &mcp.ResourceContents{MIMEType: wire.AppMIMEType, Text: viewHTML, Meta: mcp.Meta{"ui": map[string]any{
		"csp": map[string]any{
			"connectDomains":  []any{"http://127.0.0.1:7000", "http://127.0.0.1:7000", "'self'", 5, relayHost, "wss://*.example.org", "https://a.example/path"},
			"resourceDomains": many,
			"frameDomains":    "https://not-a-list.example",
			"baseUriDomains":  []any{appsHost},
		},
		"permissions":   map[string]any{"camera": map[string]any{}, "microphone": "yes", "clipboardWrite": true},
		"prefersBorder": true,
	}}})
	add("ui://hostile", &mcp.ResourceContents{MIMEType: wire.AppMIMEType, Text: viewHTML, Meta: mcp.Meta{"ui": map[string]any{
		"csp": []any{"not", "a", "map"}, "permissions": 7, "prefersBorder": "yes"}}})
	add("ui://blob", &mcp.ResourceContents{MIMEType: wire.AppMIMEType, Blob: []byte(viewHTML)})
	add("ui://big", &mcp.ResourceContents{MIMEType: wire.AppMIMEType, Text: strings.Repeat("x", wire.MaxAppHTML+1)})
	add("ui://angles", &mcp.ResourceContents{MIMEType: wire.AppMIMEType, Text: strings.Repeat("<>", 10<<10)})
	add("ui://plain", &mcp.ResourceContents{MIMEType: "text/html", Text: viewHTML})
	add("ui://counted", &mcp.ResourceContents{MIMEType: wire.AppMIMEType, Text: viewHTML})
	return srv
}

type harness struct {
	t      *testing.T
	m      *session.Manager
	mux    *ops.Mux
	server string
	mcp    *mcp.Server
	fx     *fixture.Loopback
	reads  atomic.Int32
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t}
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	logger := slog.New(slog.DiscardHandler)
	h.mux = ops.NewMux()
	h.m = session.NewManager(session.Config{Store: st, Logger: logger, Ops: h.mux,
		Dial: func(d session.Dial, emit func(conn.State)) session.Connection {
			return conn.Start(conn.Config{ID: d.Reg.ID, Name: d.Reg.Name, URL: d.Reg.URL, Logger: logger,
				HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0), HealthInterval: time.Minute,
				RetryMin: 50 * time.Millisecond, RetryMax: 400 * time.Millisecond, Apps: true,
				Journal: d.Client.Journal, LogLevel: d.Client.LogLevel}, emit)
		}})
	t.Cleanup(h.m.Close)
	room, err := apps.New(apps.Config{Sessions: h.m, Own: []string{relayHost, appsHost}, MaxResult: testMaxResult})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(room.Close)
	room.HandleOps(h.mux)
	h.mcp = viewServer(&h.reads)
	l := fixture.ServeOnce(t, h.mcp)
	h.fx = l
	res, err := h.m.Session(user).AddServer(context.Background(), "views", l.URL())
	if err != nil {
		t.Fatal(err)
	}
	h.server = res.ID
	h.until("the server is ready", func(s wire.Snapshot) bool {
		srv := s.ServerByID(h.server)
		return srv != nil && srv.State == wire.StateReady
	})
	return h
}

func (h *harness) op(who string, name wire.OpName, args any) (any, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.mux.Serve(context.Background(), ops.Request{User: who, Op: name, Args: raw})
}

func (h *harness) read(uri string) (wire.AppView, error) {
	h.t.Helper()
	v, err := h.op(user, wire.OpReadApp, wire.ReadAppArgs{Server: h.server, URI: uri})
	if err != nil {
		return wire.AppView{}, err
	}
	return v.(wire.AppView), nil
}

func (h *harness) until(what string, ok func(wire.Snapshot) bool) {
	h.t.Helper()
	s := h.m.Session(user)
	sub := s.Subscribe(wire.Hello{})
	defer sub.Close()
	deadline := time.After(waitFor)
	for {
		snap, _ := s.Snapshot()
		if ok(snap) {
			return
		}
		select {
		case <-sub.Outbox():
		case <-deadline:
			h.t.Fatalf("%s: not within %v", what, waitFor)
		}
	}
}

func TestReadApp(t *testing.T) {
	h := newHarness(t)
	v, err := h.read("ui://declared")
	if err != nil {
		t.Fatal(err)
	}
	if v.Server != h.server || v.URI != "ui://declared" || v.HTML != viewHTML || v.PrefersBorder == nil || !*v.PrefersBorder {
		t.Errorf("view %+v", v)
	}
	if got := v.CSP.ConnectDomains; strings.Join(got, " ") != "http://127.0.0.1:7000 wss://*.example.org" {
		t.Errorf("connect domains %q", got)
	}
	if n := len(v.CSP.ResourceDomains); n != 32 {
		t.Errorf("%d resource domains kept, want 32", n)
	}
	if v.CSP.FrameDomains != nil || v.CSP.BaseURIDomains != nil {
		t.Errorf("frame %q, base %q", v.CSP.FrameDomains, v.CSP.BaseURIDomains)
	}
	if v.Permissions != (wire.AppPermissions{Camera: true, ClipboardWrite: true}) {
		t.Errorf("permissions %+v", v.Permissions)
	}
	dropped := strings.Join(v.Dropped, "|")
	for _, want := range []string{"'self'", "5", relayHost, "https://a.example/path", "8 more domains", appsHost} {
		if !strings.Contains(dropped, want) {
			t.Errorf("dropped %q lacks %q", dropped, want)
		}
	}

	v, err = h.read("ui://hostile")
	if err != nil || v.HTML != viewHTML || v.CSP.ConnectDomains != nil || v.Permissions != (wire.AppPermissions{}) || v.PrefersBorder != nil {
		t.Errorf("hostile meta: %+v, %v", v, err)
	}
	if v, err = h.read("ui://blob"); err != nil || v.HTML != viewHTML {
		t.Errorf("blob: %q, %v", v.HTML, err)
	}
	var we *wire.Error
	if _, err = h.read("ui://big"); !errors.As(err, &we) || we.Code != wire.CodeTooLarge || !strings.Contains(we.Message, "too large") {
		t.Errorf("big view: %v", err)
	}
	if _, err = h.read("ui://angles"); !errors.As(err, &we) || we.Code != wire.CodeTooLarge {
		t.Errorf("a view of 20 KiB whose answer is over %d bytes once encoded: %v", testMaxResult, err)
	}
	if _, err = h.read("ui://plain"); !errors.As(err, &we) || we.Code != wire.CodeBadRequest {
		t.Errorf("plain HTML: %v", err)
	}
	if _, err = h.read("https://example.com/"); err == nil {
		t.Error("a URI other than ui:// was read")
	}
	if _, err := h.op("bob", wire.OpReadApp, wire.ReadAppArgs{Server: h.server, URI: "ui://declared"}); err == nil {
		t.Error("another person read the view")
	}
}

func TestReadAppIsCachedUntilTheListsChange(t *testing.T) {
	h := newHarness(t)
	for range 3 {
		if _, err := h.read("ui://counted"); err != nil {
			t.Fatal(err)
		}
	}
	if n := h.reads.Load(); n != 1 {
		t.Fatalf("%d reads of the server for three of the view", n)
	}
	h.mcp.AddResource(&mcp.Resource{URI: "test://new", Name: "new"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
	h.until("the new resource is listed", func(s wire.Snapshot) bool {
		srv := s.ServerByID(h.server)
		return srv != nil && slices.ContainsFunc(srv.Resources, func(r wire.Resource) bool { return r.URI == "test://new" })
	})
	if _, err := h.read("ui://counted"); err != nil {
		t.Fatal(err)
	}
	if n := h.reads.Load(); n != 2 {
		t.Fatalf("%d reads of the server after its lists changed, want 2", n)
	}
}

func TestAppLog(t *testing.T) {
	h := newHarness(t)
	if _, err := h.op(user, wire.OpAppLog, wire.AppLogArgs{Server: h.server, URI: "ui://declared", Level: "warning", Logger: "chart", Data: map[string]any{"msg": "drawn"}}); err != nil {
		t.Fatal(err)
	}
	h.until("the view's line is in the server's log", func(s wire.Snapshot) bool {
		for _, j := range s.Journals {
			for _, e := range j.Logs {
				if j.Server == h.server && e.Level == wire.LevelWarning && e.Logger == "view ui://declared: chart" && string(e.Data) == `{"msg":"drawn"}` {
					return true
				}
			}
		}
		return false
	})
	if _, err := h.op(user, wire.OpAppLog, wire.AppLogArgs{Server: h.server, URI: "ui://declared", Level: "loud", Data: "x"}); err == nil {
		t.Error("a made-up level was logged")
	}
	if _, err := h.op(user, wire.OpAppLog, wire.AppLogArgs{Server: "nope", URI: "ui://declared", Level: "info", Data: "x"}); err == nil {
		t.Error("a line was logged for no server")
	}
}

func TestReadAppIsNotCachedPastADisconnect(t *testing.T) {
	h := newHarness(t)
	if _, err := h.read("ui://counted"); err != nil {
		t.Fatal(err)
	}
	if err := h.fx.Stop(); err != nil {
		t.Fatal(err)
	}
	h.until("the server is not ready", func(s wire.Snapshot) bool {
		srv := s.ServerByID(h.server)
		return srv != nil && srv.State != wire.StateReady
	})
	if v, err := h.read("ui://counted"); err == nil {
		t.Fatalf("a disconnected server's view was served from the cache: %+v", v)
	}
}
