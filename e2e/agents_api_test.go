package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/relay/cli"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// createKey mints an agent key through the dashboard's op.
func (s *socket) createKey(args wire.CreateAgentKeyArgs) wire.CreateAgentKeyResult {
	s.t.Helper()
	f := s.op(wire.OpCreateAgentKey, args)
	if f.Type != wire.TypeResult {
		s.t.Fatalf("create agent key: %+v", f.Error)
	}
	var res wire.CreateAgentKeyResult
	if err := json.Unmarshal(f.Data, &res); err != nil {
		s.t.Fatal(err)
	}
	return res
}

// apiDo sends a request to the tool API with key as bearer and returns the
// status and body.
func (r *relay) apiDo(t testing.TB, method, path, key string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader([]byte(mustJSON(body)))
	}
	req, err := http.NewRequest(method, r.URL()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// toolNames lists the tools GET /api/tools returns for key and query.
func (r *relay) toolNames(t testing.TB, key, query string) []string {
	t.Helper()
	status, body := r.apiDo(t, http.MethodGet, gateway.ToolsPath+query, key, nil)
	if status != http.StatusOK {
		t.Fatalf("GET /api/tools%s: %d %s", query, status, body)
	}
	var fns []gateway.Function
	if err := json.Unmarshal(body, &fns); err != nil {
		t.Fatalf("decode tools: %v: %s", err, body)
	}
	names := []string{}
	for _, f := range fns {
		if f.Type != "function" || len(f.Function.Parameters) == 0 {
			t.Errorf("tool %+v is not a function definition", f)
		}
		names = append(names, f.Function.Name)
	}
	slices.Sort(names)
	return names
}

// apiScene is what TestAPIToolsListFilterCallAndActivity works on: a relay
// and a dashboard socket with two ready servers (id1, "first", and id2,
// "second"), one that is down, and two agent keys: all, for every tool, and
// narrow, for the greet tool of first alone.
type apiScene struct {
	r           *relay
	s           *socket
	id1, id2    string
	down        string
	all, narrow wire.CreateAgentKeyResult
}

func TestAPIToolsListFilterCallAndActivity(t *testing.T) {
	r := startRelay(t)
	one, two := fixture.Start(t), fixture.Start(t)
	s, _ := r.openSocket(t, r.sessionCookie(t))
	id1 := s.addServer("first", one.URL())
	s.waitServerState(id1, wire.StateReady)
	id2 := s.addServer("second", two.URL())
	s.waitServerState(id2, wire.StateReady)
	down := s.addServer("down", "http://127.0.0.1:1/mcp")

	all := s.createKey(wire.CreateAgentKeyArgs{Name: "all"})
	narrow := s.createKey(wire.CreateAgentKeyArgs{Name: "narrow", Servers: []string{id1}, Tools: []string{gateway.ToolName(id1, fixture.ToolGreet)}})
	sc := apiScene{r: r, s: s, id1: id1, id2: id2, down: down, all: all, narrow: narrow}

	checkAPIToolsListByKeyAndFilter(t, sc)
	checkAPIToolCalls(t, sc)
	// Every call shows in the activity, live and in the log.
	checkAPICallsInTheActivity(t, sc)
	// A key is limited to bursts of 40 requests, refilled at 20 a second.
	checkAPIKeyRateLimit(t, sc)

	if f := s.op(wire.OpRevokeAgentKey, wire.AgentKeyArgs{ID: all.Key.ID}); f.Type != wire.TypeResult {
		t.Fatalf("revoke: %+v", f.Error)
	}
	if status, _ := r.apiDo(t, http.MethodGet, gateway.ToolsPath, all.Secret, nil); status != http.StatusUnauthorized {
		t.Errorf("a revoked key: status %d, want 401", status)
	}
}

// checkAPIToolsListByKeyAndFilter checks which tools GET /api/tools lists
// for each key and filter, and that it wants a valid agent key.
func checkAPIToolsListByKeyAndFilter(t *testing.T, sc apiScene) {
	r, id1, id2, down, all, narrow := sc.r, sc.id1, sc.id2, sc.down, sc.all, sc.narrow
	g1, f1 := gateway.ToolName(id1, fixture.ToolGreet), gateway.ToolName(id1, fixture.ToolFail)
	g2, f2 := gateway.ToolName(id2, fixture.ToolGreet), gateway.ToolName(id2, fixture.ToolFail)
	sorted := func(s ...string) []string { slices.Sort(s); return s }
	for _, c := range []struct {
		key, query string
		want       []string
	}{
		{all.Secret, "", sorted(g1, f1, g2, f2)},
		{all.Secret, "?server=" + id2, sorted(g2, f2)},
		{all.Secret, "?server_name=first", sorted(g1, f1)},
		{all.Secret, "?state=ready", sorted(g1, f1, g2, f2)},
		{all.Secret, "?server=" + down, []string{}},
		{all.Secret, "?state=failed&state=connecting", []string{}},
		{narrow.Secret, "", []string{g1}},
		{narrow.Secret, "?server=" + id2, []string{}},
	} {
		if got := r.toolNames(t, c.key, c.query); !slices.Equal(got, c.want) {
			t.Errorf("tools of key %s%s = %v, want %v", c.key[:16], c.query, got, c.want)
		}
	}

	for name, key := range map[string]string{"no key": "", "a wrong key": all.Secret + "x", "a dashboard token": r.mint(t, "local", time.Hour)} {
		if status, _ := r.apiDo(t, http.MethodGet, gateway.ToolsPath, key, nil); status != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", name, status)
		}
	}
}

// checkAPIToolCalls calls tools through POST /api/tools/call: a result, a
// tool's error, and the refusals of a tool outside the key's list, of
// unknown tools and of arguments that are no object.
func checkAPIToolCalls(t *testing.T, sc apiScene) {
	r, id1, id2, all, narrow := sc.r, sc.id1, sc.id2, sc.all, sc.narrow
	g1, f1 := gateway.ToolName(id1, fixture.ToolGreet), gateway.ToolName(id1, fixture.ToolFail)
	g2 := gateway.ToolName(id2, fixture.ToolGreet)
	call := func(key, name string, args any) (int, wire.CallToolResult, string) {
		t.Helper()
		status, body := r.apiDo(t, http.MethodPost, gateway.ToolCallPath, key, map[string]any{"name": name, "arguments": args})
		var res wire.CallToolResult
		json.Unmarshal(body, &res)
		return status, res, string(body)
	}
	status, res, body := call(all.Secret, g2, map[string]string{"name": "Ann"})
	if status != http.StatusOK || len(res.Content) != 1 || res.Content[0].Text != fixture.Greeting("Ann") {
		t.Errorf("call greet: %d %s", status, body)
	}
	if status, res, body := call(all.Secret, f1, map[string]string{}); status != http.StatusOK || !res.IsError {
		t.Errorf("call fail: %d %s, want a result with isError", status, body)
	}
	if status, _, body := call(narrow.Secret, f1, map[string]string{}); status != http.StatusForbidden {
		t.Errorf("narrow key calling a tool outside its list: %d %s, want 403", status, body)
	}
	if status, _, body := call(all.Secret, gateway.ToolName(id1, "nope"), nil); status != http.StatusNotFound {
		t.Errorf("unknown tool: %d %s, want 404", status, body)
	}
	if status, _, body := call(all.Secret, id1+"__"+strings.Repeat("x", 1000), nil); status != http.StatusNotFound {
		t.Errorf("an overlong name: %d %s, want 404", status, body)
	}
	if status, _, body := call(all.Secret, g1, "not an object"); status != http.StatusBadRequest {
		t.Errorf("arguments that are no object: %d %s, want 400", status, body)
	}
}

// checkAPICallsInTheActivity checks that the calls of checkAPIToolCalls show
// in the dashboard's activity, live and in the log: the two that reached a
// tool by key all (its refused requests are not calls) and the denied one
// by key narrow.
func checkAPICallsInTheActivity(t *testing.T, sc apiScene) {
	s, id1, id2 := sc.s, sc.id1, sc.id2
	s.waitChange("the denied call in the activity", func(c wire.Change) bool {
		var a wire.AgentCall
		return c.Kind == wire.KindAgentCall && json.Unmarshal(c.Value, &a) == nil && a.Outcome == wire.OutcomeDenied && a.Agent == "narrow"
	})
	f := s.op(wire.OpListActivity, wire.ListActivityArgs{Agent: "all"})
	var act wire.ActivityResult
	if err := json.Unmarshal(f.Data, &act); err != nil {
		t.Fatalf("list activity: %+v", f)
	}
	var outcomes []string
	for _, a := range act.Calls {
		outcomes = append(outcomes, a.Server+" "+a.Tool+" "+string(a.Outcome))
	}
	want := []string{id1 + " fail " + string(wire.OutcomeToolError), id2 + " greet " + string(wire.OutcomeOK)}
	if !slices.Equal(outcomes, want) {
		t.Errorf("activity of agent all = %v, want %v (newest first; refused requests are not calls)", outcomes, want)
	}
	f = s.op(wire.OpListActivity, wire.ListActivityArgs{Server: id1, Outcome: wire.OutcomeDenied})
	json.Unmarshal(f.Data, &act)
	if len(act.Calls) != 1 || act.Calls[0].Agent != "narrow" {
		t.Errorf("denied calls to %s = %+v", id1, act.Calls)
	}
}

// checkAPIKeyRateLimit checks that a key sending many requests at once is
// rate-limited, and another key is not.
func checkAPIKeyRateLimit(t *testing.T, sc apiScene) {
	r, s, id1, all := sc.r, sc.s, sc.id1, sc.all
	busy := s.createKey(wire.CreateAgentKeyArgs{Name: "busy"})
	limited := false
	for range 100 {
		if status, _ := r.apiDo(t, http.MethodGet, gateway.ToolsPath, busy.Secret, nil); status == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Error("100 requests at once were not rate-limited")
	}
	if got := r.toolNames(t, all.Secret, "?server="+id1); len(got) != 2 {
		t.Errorf("another key was limited too: %v", got)
	}
}

func TestRelayPicksUpServersAddedAndKeysRevokedByTheCLI(t *testing.T) {
	r := startRelay(t)
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	s, _ := r.openSocket(t, r.sessionCookie(t))

	var out bytes.Buffer
	if err := cli.Servers([]string{"add", "--data", r.cfg.DataDir, "--user", "local", "--name", "from the CLI", "--url", fx.URL()}, &out); err != nil {
		t.Fatalf("servers add: %v\n%s", err, out.String())
	}
	fields := strings.Fields(out.String())
	id := fields[len(fields)-1]
	s.waitChange("the server the CLI added", func(c wire.Change) bool {
		return c.Kind == wire.KindServer && c.Server == id && !c.Remove
	})
	s.waitServerState(id, wire.StateReady)

	out.Reset()
	if err := cli.AgentKey([]string{"create", "--data", r.cfg.DataDir, "--user", "local", "--name", "cli-bot"}, &out); err != nil {
		t.Fatalf("agent-key create: %v", err)
	}
	fields = strings.Fields(out.String())
	key := fields[len(fields)-1]

	// A call whose server asks a question waits for a person in the
	// dashboard; revoking its key from the CLI ends it.
	type answer struct {
		status int
		body   []byte
	}
	done := make(chan answer, 1)
	go func() {
		st, b := r.apiDo(t, http.MethodPost, gateway.ToolCallPath, key, map[string]any{"name": gateway.ToolName(id, "form_boolean"), "arguments": map[string]any{}})
		done <- answer{st, b}
	}()
	running := s.waitChange("the call running in the activity", func(c wire.Change) bool {
		var a wire.AgentCall
		return c.Kind == wire.KindAgentCall && json.Unmarshal(c.Value, &a) == nil && a.Agent == "cli-bot" && a.Outcome == wire.OutcomeRunning
	})
	s.waitChange("the server's question in the dashboard", func(c wire.Change) bool {
		return c.Kind == wire.KindAsk && c.Server == id && !c.Remove
	})
	out.Reset()
	keyID := strings.SplitN(strings.TrimPrefix(key, "sbk_"), "_", 2)[0]
	if err := cli.AgentKey([]string{"revoke", "--data", r.cfg.DataDir, "--user", "local", "--id", keyID}, &out); err != nil {
		t.Fatalf("agent-key revoke: %v", err)
	}
	select {
	case a := <-done:
		if a.status == http.StatusOK {
			t.Errorf("the call of a revoked key completed: %s", a.body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call of a revoked key is still running")
	}
	var replaced bool
	s.next("the cancelled call in place of the running one", func(f wire.Frame) bool {
		var d wire.Delta
		if f.Type != wire.TypeDelta || json.Unmarshal(f.Data, &d) != nil {
			return false
		}
		for _, c := range d.Changes {
			var a wire.AgentCall
			if c.Kind == wire.KindAgentCall && c.Remove && c.Key == running.Key {
				replaced = true
			}
			if c.Kind == wire.KindAgentCall && json.Unmarshal(c.Value, &a) == nil && a.Agent == "cli-bot" && a.Outcome == wire.OutcomeCancelled {
				if !a.Asked {
					t.Error("the call is not marked as having asked a person")
				}
				return true
			}
		}
		return false
	})
	if !replaced {
		t.Error("the running call was not removed in the delta that logged its end")
	}
}
