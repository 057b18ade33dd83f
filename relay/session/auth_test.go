package session

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// recordingAuth answers OAuth ops with a fixed URL and records the calls.
// The OAuth flow itself is tested against real servers in relay/oauth.
type recordingAuth struct {
	url     string
	mu      sync.Mutex
	calls   []string
	clients map[string]string
}

func (a *recordingAuth) Authorize(_ context.Context, user, server string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, "authorize "+user+"/"+server)
	return a.url, nil
}

func (a *recordingAuth) SetClient(_ context.Context, user, server, id, secret string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, "set "+user+"/"+server+" "+id)
	a.clients[user+"/"+server] = secret
	return nil
}

func (a *recordingAuth) Release(user, server string) {}

func (a *recordingAuth) Forget(_ context.Context, user, server string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, "forget "+user+"/"+server)
	return nil
}

func runOp(t *testing.T, s *Session, op wire.OpName, args any) (any, error) {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return s.m.ops.Serve(context.Background(), ops.Request{User: s.user, Op: op, Args: b})
}

func codeOf(err error) wire.Code {
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return ""
}

func TestAuthorizeOpReturnsACheckedURL(t *testing.T) {
	auth := &recordingAuth{url: "https://as.example/authorize?state=x", clients: map[string]string{}}
	f := newFixtureWith(t, t.TempDir(), func(c *Config) { c.Auth = auth })
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")

	res, err := runOp(t, s, wire.OpAuthorize, wire.ServerArgs{Server: id})
	if err != nil || res.(wire.AuthorizeResult).URL != auth.url {
		t.Fatalf("authorize = %v, %v", res, err)
	}
	for _, bad := range []string{"javascript:alert(1)", "http://as.example/authorize", "data:text/html,x"} {
		auth.url = bad
		if _, err := runOp(t, s, wire.OpAuthorize, wire.ServerArgs{Server: id}); codeOf(err) != wire.CodeInvalidURL {
			t.Errorf("authorize with %q: %v, want invalid_url", bad, err)
		}
	}
	if _, err := runOp(t, s, wire.OpAuthorize, wire.ServerArgs{Server: "nope"}); codeOf(err) != wire.CodeNotFound {
		t.Errorf("authorize of an unknown server: %v", err)
	}
}

func TestSetClientOpAndRemovalReachTheAuthOfThatUsersServer(t *testing.T) {
	auth := &recordingAuth{clients: map[string]string{}}
	f := newFixtureWith(t, t.TempDir(), func(c *Config) { c.Auth = auth })
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	if _, err := runOp(t, s, wire.OpSetClient, wire.SetClientArgs{Server: id, ClientID: "cid", ClientSecret: "sec"}); err != nil {
		t.Fatal(err)
	}
	if auth.clients["alice/"+id] != "sec" {
		t.Errorf("clients %v", auth.clients)
	}
	if _, err := runOp(t, f.m.Session("bob"), wire.OpSetClient, wire.SetClientArgs{Server: id, ClientID: "x"}); codeOf(err) != wire.CodeNotFound {
		t.Errorf("bob setting alice's server's client: %v", err)
	}
	if err := s.RemoveServer(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	want := []string{"set alice/" + id + " cid", "forget alice/" + id}
	if len(auth.calls) != 2 || auth.calls[0] != want[0] || auth.calls[1] != want[1] {
		t.Errorf("calls %v, want %v", auth.calls, want)
	}
}

func TestAddServerTakesAValidTransport(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	ctx := context.Background()
	res, err := s.Add(ctx, wire.AddServerArgs{Name: "legacy", URL: "http://127.0.0.1:9/sse", Transport: wire.TransportSSE})
	if err != nil {
		t.Fatal(err)
	}
	regs, err := f.store.Servers(ctx, "alice")
	if err != nil || len(regs) != 1 || regs[0].ID != res.ID || regs[0].Transport != string(wire.TransportSSE) {
		t.Fatalf("registrations %+v, %v", regs, err)
	}
	snap, _ := s.Snapshot()
	if snap.Servers[0].Transport != wire.TransportSSE {
		t.Errorf("snapshot transport %q", snap.Servers[0].Transport)
	}
	if _, err := s.Add(ctx, wire.AddServerArgs{Name: "legacy", URL: "http://127.0.0.1:9/sse"}); codeOf(err) != wire.CodeBadRequest {
		t.Errorf("same name and URL with another transport: %v", err)
	}
	if _, err := s.Add(ctx, wire.AddServerArgs{Name: "ws", URL: "http://127.0.0.1:9/ws", Transport: "websocket"}); codeOf(err) != wire.CodeBadRequest {
		t.Errorf("unknown transport: %v", err)
	}
	res2, err := s.Add(ctx, wire.AddServerArgs{Name: "plain", URL: "http://127.0.0.1:9/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	regs, _ = f.store.Servers(ctx, "alice")
	if len(regs) != 2 || regs[1].ID != res2.ID || regs[1].Transport != string(wire.TransportAuto) {
		t.Errorf("default transport: %+v", regs)
	}
}
