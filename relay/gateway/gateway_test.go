package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestAgentListsAndCallsOnBothEras(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			r := newRelay(t, broker.Config{})
			up := startUpstream(t)
			id := r.add("alice", "notes", up.url)
			r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
			a := r.connect("k1", gateway.Path, era)

			tools := a.toolNames(t)
			echo := tools[id+"__echo"]
			if echo == nil {
				t.Fatalf("tools %v lack %s__echo", keysOf(tools), id)
			}
			want := *echoTool
			want.Name = id + "__echo"
			if got, exp := jsonOf(t, echo), jsonOf(t, &want); got != exp {
				t.Errorf("tool as the agent sees it:\n%s\nwant as the server sent it:\n%s", got, exp)
			}
			if out, isErr := a.call(t, id+"__echo", map[string]any{"a": 1, "b": "x"}); isErr || !strings.Contains(out, `"b":"x"`) {
				t.Errorf("echo = %q (isError %v)", out, isErr)
			}

			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			p, err := a.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: id + "__hello"})
			if err != nil || p.Messages[0].Content.(*mcp.TextContent).Text != "hello there" {
				t.Errorf("prompt = %+v, %v", p, err)
			}
			res, err := a.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "switchboard-" + id + "+note://one"})
			if err != nil || res.Contents[0].Text != "first note" || res.Contents[0].URI != "switchboard-"+id+"+note://one" {
				t.Errorf("resource = %+v, %v", res, err)
			}
			res, err = a.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "switchboard-" + id + "+note://two"})
			if err != nil || res.Contents[0].Text != "note at note://two" {
				t.Errorf("templated resource = %+v, %v", res, err)
			}

			// One server alone: its names as they are.
			s := r.connect("k1", gateway.ServerPath+id, era)
			if _, ok := s.toolNames(t)["echo"]; !ok {
				t.Errorf("/mcp/s/%s tools %v lack echo", id, keysOf(s.toolNames(t)))
			}
			if out, _ := s.call(t, "echo", map[string]any{"a": 2}); !strings.Contains(out, `"a":2`) {
				t.Errorf("echo on the server's endpoint = %q", out)
			}
			if era < "2026-07-28" { // that era has no ping
				if err := s.cs.Ping(ctx, nil); err != nil {
					t.Errorf("ping through to the server: %v", err)
				}
			}

			recs := r.recs.all()
			if len(recs) == 0 || recs[0].Agent != "Claude" || recs[0].Tool != "echo" || recs[0].Outcome != wire.OutcomeOK || recs[0].Server != id {
				t.Errorf("records %+v", recs)
			}
		})
	}
}

func TestAgentProgressAndCancelPassThrough(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			r := newRelay(t, broker.Config{})
			up := startUpstream(t)
			id := r.add("alice", "notes", up.url)
			r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
			a := r.connect("k1", gateway.Path, era)

			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				params := &mcp.CallToolParams{Name: id + "__slow", Arguments: map[string]any{}}
				params.SetProgressToken("agent-token")
				_, err := a.cs.CallTool(ctx, params)
				done <- err
			}()
			var last float64
			for i := 0; i < 3; i++ {
				select {
				case p := <-a.progress:
					if p.ProgressToken != "agent-token" || p.Progress <= last || p.Total != 10 {
						t.Errorf("progress %+v after %v", p, last)
					}
					last = p.Progress
				case <-time.After(waitFor):
					t.Fatal("no progress reached the agent")
				}
			}
			cancel()
			select {
			case <-up.cancelled:
			case <-time.After(waitFor):
				t.Fatal("the server did not see the agent's cancellation")
			}
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled call returned %v", err)
			}
		})
	}
}

func TestServerLogsReachTheAgentAtItsLevel(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			r := newRelay(t, broker.Config{})
			id := r.add("alice", "notes", startUpstream(t).url)
			r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
			a := r.connect("k1", gateway.Path, era)
			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			// Before 2026-07-28 a session sets its level; from then on each
			// request carries it.
			p := &mcp.CallToolParams{Name: id + "__chatty", Arguments: map[string]any{}}
			if era < "2026-07-28" {
				if err := a.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
					t.Fatal(err)
				}
			} else {
				p.Meta = mcp.Meta{mcp.MetaKeyLogLevel: "info"}
			}
			res, err := a.cs.CallTool(ctx, p)
			if err != nil || text(res) != "done" {
				t.Fatalf("chatty = %v, %v", res, err)
			}
			select {
			case l := <-a.logs:
				if l.Data != "working hard" || l.Level != "warning" {
					t.Errorf("the agent heard %+v; want the warning, not the debug line", l)
				}
			case <-time.After(waitFor):
				t.Fatal("no log message reached the agent")
			}
		})
	}
}

func TestAgentHearsListChangedWhenAServerIsAdded(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			r := newRelay(t, broker.Config{})
			r.add("alice", "first", startUpstream(t).url)
			r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
			a := r.connect("k1", gateway.Path, era)
			before := len(a.toolNames(t))

			id := r.add("alice", "second", startUpstream(t).url)
			select {
			case <-a.changed:
			case <-time.After(waitFor):
				t.Fatal("no tools/list_changed after a server became ready")
			}
			tools := a.toolNames(t)
			if _, ok := tools[id+"__echo"]; !ok || len(tools) != 2*before {
				t.Errorf("after adding %s: tools %v", id, keysOf(tools))
			}
		})
	}
}

func TestAgentHearsListChangedWhenAServerChangesOrGoes(t *testing.T) {
	r := newRelay(t, broker.Config{})
	up := startUpstream(t)
	id := r.add("alice", "notes", up.url)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	a := r.connect("k1", gateway.Path, eras[1])
	a.toolNames(t)
	heard := func(what string) {
		t.Helper()
		select {
		case <-a.changed:
		case <-time.After(waitFor):
			t.Fatalf("no tools/list_changed after %s", what)
		}
	}

	up.srv.AddTool(&mcp.Tool{Name: "fresh", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	for _, ok := a.toolNames(t)[id+"__fresh"]; !ok; _, ok = a.toolNames(t)[id+"__fresh"] {
		heard("the server added a tool")
	}

	if err := r.m.Session("alice").RemoveServer(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	heard("the server was removed")
	for tools := a.toolNames(t); len(tools) > 0; tools = a.toolNames(t) {
		heard("the server was removed")
	}
}

func TestScopeIsEnforcedMidSession(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			r := newRelay(t, broker.Config{})
			a1 := r.add("alice", "first", startUpstream(t).url)
			a2 := r.add("alice", "second", startUpstream(t).url)
			r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1", Servers: []string{a1}})
			a := r.connect("k1", gateway.Path, era)
			tools := a.toolNames(t)
			if _, ok := tools[a2+"__echo"]; ok || tools[a1+"__echo"] == nil {
				t.Fatalf("a key for %s lists %v", a1, keysOf(tools))
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			if res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: a2 + "__echo", Arguments: map[string]any{"a": 1}}); err == nil && !res.IsError {
				t.Errorf("a call outside the key's servers succeeded: %s", text(res))
			}
			if _, err := r.dial("k1", "/mcp/s/"+a2, era); err == nil {
				t.Errorf("the endpoint of a server outside the key's scope answered")
			}

			// Narrowed to one tool mid-session: the next request sees it.
			r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1", Servers: []string{a1}, Tools: []string{a1 + "__slow"}})
			tools = a.toolNames(t)
			if _, ok := tools[a1+"__echo"]; ok {
				t.Errorf("after narrowing, tools %v", keysOf(tools))
			}
			if res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: a1 + "__echo", Arguments: map[string]any{"a": 1}}); err == nil && !res.IsError {
				t.Errorf("a tool outside the narrowed grant answered: %s", text(res))
			}
		})
	}
}

func TestCloseKeyEndsItsSessions(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			r := newRelay(t, broker.Config{})
			id := r.add("alice", "first", startUpstream(t).url)
			r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
			a := r.connect("k1", gateway.Path, era)
			a.call(t, id+"__echo", map[string]any{"a": 1})

			r.keys.revoke("k1")
			r.g.CloseKey("key1")
			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			if _, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: id + "__echo", Arguments: map[string]any{"a": 1}}); err == nil {
				t.Error("a revoked key's session still calls")
			}
			if _, err := r.dial("k1", gateway.Path, era); err == nil {
				t.Error("a revoked key connects")
			}
		})
	}
}

func TestAKeyNeverReachesAnotherUsersServers(t *testing.T) {
	r := newRelay(t, broker.Config{})
	alice := r.add("alice", "notes", startUpstream(t).url)
	r.keys.put("kb", agentkeys.Grant{User: "bob", Agent: "Bot", KeyID: "keyb"})
	b := r.connect("kb", gateway.Path, eras[0])
	if tools := b.toolNames(t); len(tools) != 0 {
		t.Errorf("bob's key lists %v", keysOf(tools))
	}
	if _, err := r.dial("kb", gateway.ServerPath+alice, eras[0]); err == nil {
		t.Error("bob's key opened alice's server endpoint")
	}
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	json.Unmarshal(b, &x)
	if reflect.ValueOf(x).IsZero() {
		t.Fatal("empty")
	}
	b, _ = json.Marshal(x)
	return string(b)
}

func TestEachKeyIsRateLimited(t *testing.T) {
	r := newRelay(t, broker.Config{})
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	r.keys.put("k2", agentkeys.Grant{User: "alice", Agent: "Other", KeyID: "key2"})
	a := r.connect("k1", gateway.Path, eras[0])
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	var limited error
	for range 2 * gateway.DefaultBurst {
		if limited = a.cs.Ping(ctx, nil); limited != nil {
			break
		}
	}
	if limited == nil || !strings.Contains(limited.Error(), "Too Many Requests") {
		t.Fatalf("%d pings at once: last error %v", 2*gateway.DefaultBurst, limited)
	}
	if _, err := r.dial("k2", gateway.Path, eras[0]); err != nil {
		t.Errorf("another key is limited too: %v", err)
	}
}

func TestBrowserFromAnotherOriginIsRefused(t *testing.T) {
	r := newRelay(t, broker.Config{})
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	req, _ := http.NewRequest(http.MethodPost, r.url+gateway.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Authorization", "Bearer k1")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a request from another origin got %d", resp.StatusCode)
	}
	req, _ = http.NewRequest(http.MethodPost, r.url+gateway.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a request without a key got %d", resp.StatusCode)
	}
}

// A key that expires ends its live sessions then, open streams included,
// not only at its next request.
func TestExpiryEndsALiveSession(t *testing.T) {
	r := newRelay(t, broker.Config{})
	r.add("alice", "first", startUpstream(t).url)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1", Expires: time.Now().Add(time.Second)})
	a := r.connect("k1", gateway.Path, eras[0])
	ended := make(chan error, 1)
	go func() { ended <- a.cs.Wait() }()
	select {
	case <-ended:
	case <-time.After(waitFor):
		t.Fatal("the session of an expired key is still open")
	}
}

// The URI of a resource an agent reads through a template is the agent's
// own text: the activity record keeps it capped and on one line.
func TestRecordedResourceURIIsCapped(t *testing.T) {
	r := newRelay(t, broker.Config{})
	id := r.add("alice", "notes", startUpstream(t).url)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	a := r.connect("k1", gateway.Path, eras[0])
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	long := strings.Repeat("a", 200<<10) + "%0Afake"
	if _, err := a.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "switchboard-" + id + "+note://" + long}); err != nil {
		t.Fatal(err)
	}
	recs := r.recs.all()
	if len(recs) != 1 {
		t.Fatalf("records %d, want 1", len(recs))
	}
	if n := len(recs[0].Tool); n > 4*1024 || strings.ContainsAny(recs[0].Tool, "\n\r") {
		t.Errorf("recorded a name of %d bytes", n)
	}
}

// A subscription the relay refuses is an error for the agent, not a
// silent success.
func TestRefusedSubscriptionIsAnError(t *testing.T) {
	r := newRelay(t, broker.Config{})
	id := r.add("alice", "notes", startUpstream(t).url)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	a := r.connect("k1", gateway.Path, eras[0])
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	long := "switchboard-" + id + "+note://" + strings.Repeat("a", 100<<10)
	if err := a.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: long}); err == nil {
		t.Error("a subscription to a 100 KB URI succeeded")
	}
}

// A read the relay refuses (here, over its result limit) is an error for
// the agent, with the relay's reason, not an empty result.
func TestARefusedReadIsAnErrorForTheAgent(t *testing.T) {
	r := newRelay(t, broker.Config{})
	up := startUpstream(t)
	id := r.add("alice", "notes", up.url)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	a := r.connect("k1", gateway.Path, eras[0])
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	res, err := a.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "switchboard-" + id + "+" + hugeNote})
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("read = %+v, %v; want an error naming the limit", res, err)
	}
}
