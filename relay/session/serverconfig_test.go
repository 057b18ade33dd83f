package session

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// stateOf returns server id's state in the session's snapshot.
func stateOf(t *testing.T, s *Session, id string) wire.Server {
	t.Helper()
	snap, _ := s.Snapshot()
	for _, srv := range snap.Servers {
		if srv.ID == id {
			return srv
		}
	}
	t.Fatalf("no server %s in the snapshot", id)
	return wire.Server{}
}

func TestHeadersReachTheDialerAndOnlyTheirNamesTheState(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	res, err := s.Add(context.Background(), wire.AddServerArgs{Name: "hosted", URL: "https://h.example/mcp?api_key=sk-42",
		Headers: map[string]string{"x-api-key": "hdr-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	d := f.conn(res.ID).dial
	if d.Reg.Headers["X-Api-Key"] != "hdr-secret" || d.Reg.URL != "https://h.example/mcp?api_key=sk-42" || !d.OAuth() {
		t.Fatalf("dialed with %+v", d.Reg)
	}
	st := stateOf(t, s, res.ID)
	if st.URL != "https://h.example/mcp?api_key=•••" || len(st.HeaderNames) != 1 || st.HeaderNames[0] != "X-Api-Key" || st.Transport != wire.TransportAuto {
		t.Errorf("state %+v", st.Meta())
	}
	// An edit of the path that leaves the key masked keeps the key.
	moved := "https://h.example/v2?api_key=•••"
	if err := owner(t, s, res.ID).Update(context.Background(), wire.UpdateServerArgs{Server: res.ID, URL: &moved}); err != nil {
		t.Fatal(err)
	}
	if got := f.conn(res.ID).dial.Reg.URL; got != "https://h.example/v2?api_key=sk-42" {
		t.Errorf("after an edit with the key masked, dialed %q", got)
	}
	frame, _ := s.Snapshot()
	if b, _ := wire.Encode(mustFrame(t, frame)); strings.Contains(string(b), "hdr-secret") || strings.Contains(string(b), "sk-42") {
		t.Error("a secret is in the snapshot frame")
	}
}

func mustFrame(t *testing.T, snap wire.Snapshot) wire.Frame {
	t.Helper()
	f, err := wire.NewFrame(wire.TypeSnapshot, snap)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestAuthorizationHeaderTurnsOAuthOff(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	res, err := s.Add(context.Background(), wire.AddServerArgs{Name: "bearer", URL: "https://h.example/mcp",
		Headers: map[string]string{"authorization": "Bearer t"}})
	if err != nil {
		t.Fatal(err)
	}
	if f.conn(res.ID).dial.OAuth() {
		t.Error("a server with an Authorization header is dialed with OAuth")
	}
}

func TestAddRefusesForbiddenHeadersAndTakenIDs(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	ctx := context.Background()
	_, err := s.Add(ctx, wire.AddServerArgs{Name: "x", URL: "https://h.example/mcp", Headers: map[string]string{"Mcp-Session-Id": "v"}})
	if codeOf(err) != wire.CodeBadRequest || !strings.Contains(err.Error(), "cannot be set") {
		t.Errorf("Mcp-Session-Id header: %v", err)
	}
	res, err := s.Add(ctx, wire.AddServerArgs{Name: "GitHub", ID: "  My GitHub! ", URL: "https://h.example/mcp"})
	if err != nil || res.ID != "my-github" {
		t.Fatalf("caller id: %+v %v", res, err)
	}
	again, err := s.Add(ctx, wire.AddServerArgs{Name: "GitHub", ID: "my-github", URL: "https://h.example/mcp"})
	if err != nil || !again.Existing {
		t.Errorf("the same server again: %+v %v", again, err)
	}
	_, err = s.Add(ctx, wire.AddServerArgs{Name: "Other", ID: "MY GITHUB", URL: "https://o.example/mcp"})
	if codeOf(err) != wire.CodeBadRequest || !strings.Contains(err.Error(), `"my-github" is taken`) {
		t.Errorf("the id of another server: %v", err)
	}
	_, err = s.Add(ctx, wire.AddServerArgs{Name: "GitHub", URL: "https://o.example/mcp"})
	if codeOf(err) != wire.CodeBadRequest || !strings.Contains(err.Error(), "unique") {
		t.Errorf("the name of another server: %v", err)
	}
}

func TestUpdateRestartsTheConnectionAndKeepsTheRest(t *testing.T) {
	auth := &recordingAuth{clients: map[string]string{}}
	f := newFixtureWith(t, t.TempDir(), func(c *Config) { c.Auth = auth })
	s := f.m.Session("alice")
	ctx := context.Background()
	res, err := s.Add(ctx, wire.AddServerArgs{Name: "a", URL: "https://a.example/mcp", Headers: map[string]string{"X-Key": "one", "X-Gone": "g"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := owner(t, s, res.ID).SetAskModes(ctx, wire.SetAskModesArgs{Server: res.ID, Form: true}); err != nil {
		t.Fatal(err)
	}
	o := f.store.OAuth(f.store.Sealer())
	if err := o.PutToken(ctx, store.OAuthToken{User: "alice", Server: res.ID, AccessToken: "tok"}); err != nil {
		t.Fatal(err)
	}
	first := f.conn(res.ID)
	name, u, transport := "renamed", "https://a.example/v2", wire.TransportSSE
	err = owner(t, s, res.ID).Update(ctx, wire.UpdateServerArgs{Server: res.ID, Name: &name, URL: &u, Transport: &transport,
		Headers: map[string]string{"X-Key": "two", "X-Gone": ""}, Retry: &wire.Retry{Attempts: 3}})
	if err != nil {
		t.Fatal(err)
	}
	second := f.conn(res.ID)
	if second == first || !first.closed {
		t.Fatal("the connection did not restart")
	}
	reg := second.dial.Reg
	if reg.Name != name || reg.URL != u || reg.Transport != string(transport) || reg.Headers["X-Key"] != "two" || len(reg.Headers) != 1 || reg.Retry.Attempts != 3 {
		t.Errorf("redialed with %+v", reg)
	}
	if second.dial.Modes.URL || !second.dial.Modes.Form {
		t.Errorf("ask modes lost: %+v", second.dial.Modes)
	}
	if _, ok, _ := o.Token(ctx, "alice", res.ID); !ok {
		t.Error("an edit on the same origin dropped the token")
	}
	if st := stateOf(t, s, res.ID); st.Name != name || st.Retry == nil || st.Retry.Attempts != 3 {
		t.Errorf("state %+v", st.Meta())
	}
	// A new origin never gets the header values typed for the old one:
	// the move waits for them to be typed again.
	other := "https://b.example/mcp"
	if err := owner(t, s, res.ID).Update(ctx, wire.UpdateServerArgs{Server: res.ID, URL: &other}); codeOf(err) != wire.CodeBadRequest || !strings.Contains(err.Error(), "X-Key") {
		t.Fatalf("a move keeping the header values: %v", err)
	}
	if _, ok, _ := o.Token(ctx, "alice", res.ID); !ok {
		t.Error("a refused move dropped the token")
	}
	// A new origin drops the authorization.
	if err := owner(t, s, res.ID).Update(ctx, wire.UpdateServerArgs{Server: res.ID, URL: &other, Headers: map[string]string{"X-Key": "for-b"}}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := o.Token(ctx, "alice", res.ID); ok {
		t.Error("a new origin kept the token")
	}
	if want := []string{"forget alice/" + res.ID}; !slices.Equal(auth.calls, want) {
		t.Errorf("auth calls %v, want %v", auth.calls, want)
	}
	// Bad input changes nothing.
	bad := "127.0.0.1:8192/mcp"
	if err := owner(t, s, res.ID).Update(ctx, wire.UpdateServerArgs{Server: res.ID, URL: &bad}); codeOf(err) != wire.CodeInvalidURL {
		t.Errorf("bad URL: %v", err)
	}
	if regs, _ := f.store.Servers(ctx, "alice"); regs[0].URL != other {
		t.Errorf("a refused edit changed the store: %+v", regs[0])
	}
}

func TestDisconnectedServerStaysDisconnectedAcrossARestart(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, dir)
	s := f.m.Session("alice")
	ctx := context.Background()
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	c := f.conn(id)
	if err := owner(t, s, id).SetConnected(ctx, false); err != nil {
		t.Fatal(err)
	}
	if !c.closed || !stateOf(t, s, id).Disconnected {
		t.Fatal("disconnecting left the connection open")
	}
	f.m.Close()
	f.store.Close()

	g := newFixture(t, dir)
	if err := g.m.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	s = g.m.Session("alice")
	if g.conn(id) != nil || !stateOf(t, s, id).Disconnected {
		t.Fatal("a disconnected server was dialed after a restart")
	}
	if err := owner(t, s, id).SetConnected(ctx, true); err != nil {
		t.Fatal(err)
	}
	if g.conn(id) == nil || stateOf(t, s, id).Disconnected {
		t.Error("connecting again did not dial")
	}
}

func TestAMaskedKeyGoesBackOnlyToItsOwnOrigin(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	ctx := context.Background()
	res, err := s.Add(ctx, wire.AddServerArgs{Name: "k", URL: "https://a.example/mcp?api_key=sk-secret-1"})
	if err != nil {
		t.Fatal(err)
	}
	shown := stateOf(t, s, res.ID).URL
	moved := strings.Replace(shown, "https://a.example", "https://evil.example", 1)
	if err := owner(t, s, res.ID).Update(ctx, wire.UpdateServerArgs{Server: res.ID, URL: &moved}); codeOf(err) != wire.CodeInvalidURL {
		t.Fatalf("moving the masked key to another origin: %v", err)
	}
	samePath := strings.Replace(shown, "/mcp", "/v2", 1)
	if err := owner(t, s, res.ID).Update(ctx, wire.UpdateServerArgs{Server: res.ID, URL: &samePath}); err != nil {
		t.Fatal(err)
	}
	if got := f.conn(res.ID).dial.Reg.URL; got != "https://a.example/v2?api_key=sk-secret-1" {
		t.Errorf("same-origin edit dialed %q", got)
	}
}

func TestAPersonsIDCannotTakeAConfiguredServersPlace(t *testing.T) {
	f := newFixture(t, t.TempDir())
	_, err := f.m.Session("alice").Add(context.Background(), wire.AddServerArgs{Name: "x", URL: "http://127.0.0.1:9/x", ID: "Stdio Files"})
	if codeOf(err) != wire.CodeBadRequest || !strings.Contains(err.Error(), StdioIDPrefix) {
		t.Errorf("an id in the configured servers' space: %v", err)
	}
}
