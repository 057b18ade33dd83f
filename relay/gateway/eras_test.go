package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
)

// Every protocol version the gateway serves to agents.
var agentEras = []string{"2025-06-18", "2025-11-25", "2026-07-28"}

// transcript is an agent's RoundTripper that adds its key and keeps what
// each response carried, to read back as JSON-RPC messages.
type transcript struct {
	key     string
	mu      sync.Mutex
	bodies  []*bytes.Buffer
	methods map[string]string // the method of each request, by its id
}

func (tr *transcript) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+tr.key)
	if req.GetBody != nil {
		tr.noteRequest(req)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	buf := &bytes.Buffer{}
	tr.mu.Lock()
	tr.bodies = append(tr.bodies, buf)
	tr.mu.Unlock()
	resp.Body = &recorded{ReadCloser: resp.Body, tr: tr, buf: buf}
	return resp, nil
}

// noteRequest notes the method of the request req carries.
func (tr *transcript) noteRequest(req *http.Request) {
	body, err := req.GetBody()
	if err != nil {
		return
	}
	defer body.Close()
	var rpc struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.NewDecoder(body).Decode(&rpc) != nil || rpc.ID == nil {
		return
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.methods == nil {
		tr.methods = map[string]string{}
	}
	tr.methods[string(rpc.ID)] = rpc.Method
}

type recorded struct {
	io.ReadCloser
	tr  *transcript
	buf *bytes.Buffer
}

func (r *recorded) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.tr.mu.Lock()
	r.buf.Write(p[:n])
	r.tr.mu.Unlock()
	return n, err
}

// message is one JSON-RPC message the agent received.
type message struct {
	ID     json.RawMessage            `json:"id"`
	Method string                     `json:"method"`
	Result map[string]json.RawMessage `json:"result"`
	Params map[string]json.RawMessage `json:"params"`
	Error  json.RawMessage            `json:"error"`
	raw    string
	of     string // of a response: the method of its request, when the transcript saw it
}

// messages returns every JSON-RPC message received so far: a response's
// JSON body, or the data of each event of its stream.
func (tr *transcript) messages(t *testing.T) []message {
	t.Helper()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []message
	add := func(b []byte) {
		b = bytes.TrimSpace(b)
		if len(b) == 0 || b[0] != '{' {
			return
		}
		var m message
		if err := json.Unmarshal(b, &m); err != nil {
			t.Errorf("not JSON-RPC: %s", b)
			return
		}
		m.raw = string(b)
		if m.Method == "" {
			m.of = tr.methods[string(m.ID)]
		}
		out = append(out, m)
	}
	for _, body := range tr.bodies {
		b := body.Bytes()
		if bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
			add(b)
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok {
				add(data)
			}
		}
	}
	return out
}

// serveUpstreamStateless serves srv over Streamable HTTP statelessly, so
// that the relay speaks 2026-07-28 to it.
func serveUpstreamStateless(t testing.TB, srv *mcp.Server) string {
	t.Helper()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
	})
	return hs.URL
}

// An agent of each era, on each endpoint, gets exactly its era's shapes,
// from a server the relay speaks 2026-07-28 to: before 2026-07-28 none of
// that version's fields (resultType, ttlMs, cacheScope, the _meta keys of
// io.modelcontextprotocol/); from then on, results that name the gateway,
// never the server behind it.
func TestEachAgentGetsItsErasShapes(t *testing.T) {
	r := newRelay(t, broker.Config{})
	up := startUpstream(t)
	id := r.add("alice", "notes", serveUpstreamStateless(t, up.srv))
	if v := r.m.Session("alice").Servers()[0].ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("the relay speaks %q to the server, want 2026-07-28", v)
	}
	for _, era := range agentEras {
		for _, ep := range []struct{ path, tool, prompt, uri string }{
			{gateway.Path, id + "__echo", id + "__hello", "switchboard-" + id + "+note://one"},
			{gateway.ServerPath + id, "echo", "hello", "note://one"},
		} {
			t.Run(era+ep.path, func(t *testing.T) {
				key := "k" + era + ep.path // each its own request budget
				r.keys.put(key, agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: key})
				tr := &transcript{key: key}
				client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
				ctx, cancel := context.WithTimeout(context.Background(), waitFor)
				defer cancel()
				cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.url + ep.path, HTTPClient: &http.Client{Transport: tr}},
					&mcp.ClientSessionOptions{ProtocolVersion: era})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				if got := cs.InitializeResult().ProtocolVersion; got != era {
					t.Fatalf("negotiated %s, want %s", got, era)
				}
				if _, err := cs.ListTools(ctx, nil); err != nil {
					t.Fatal(err)
				}
				if _, err := cs.ListPrompts(ctx, nil); err != nil {
					t.Fatal(err)
				}
				if _, err := cs.ListResources(ctx, nil); err != nil {
					t.Fatal(err)
				}
				if _, err := cs.ListResourceTemplates(ctx, nil); err != nil {
					t.Fatal(err)
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ep.tool, Arguments: map[string]any{"a": 1}})
				if err != nil || res.IsError || !strings.Contains(text(res), `"a":1`) {
					t.Fatalf("call: %v, %v", res, err)
				}
				if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: ep.prompt}); err != nil {
					t.Fatal(err)
				}
				read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ep.uri})
				if err != nil || read.Contents[0].Text != "first note" {
					t.Fatalf("read: %v, %v", read, err)
				}

				msgs := tr.messages(t)
				results, checked := 0, 0
				for _, m := range msgs {
					if checkSchema(t, era, m) {
						checked++
					}
					if m.Result == nil {
						if strings.Contains(string(m.Params["_meta"]), `"io.modelcontextprotocol/serverInfo"`) {
							t.Errorf("a notification names a server: %s", m.raw)
						}
						continue
					}
					results++
					if era < "2026-07-28" {
						for _, f := range []string{"resultType", "ttlMs", "cacheScope", "inputRequests", "requestState"} {
							if _, ok := m.Result[f]; ok {
								t.Errorf("%s leaked to a %s agent: %s", f, era, m.raw)
							}
						}
						if strings.Contains(string(m.Result["_meta"]), `"io.modelcontextprotocol/`) {
							t.Errorf("_meta of 2026-07-28 leaked to a %s agent: %s", era, m.raw)
						}
						continue
					}
					var info struct {
						Server *mcp.Implementation `json:"io.modelcontextprotocol/serverInfo"`
					}
					json.Unmarshal(m.Result["_meta"], &info)
					if string(m.Result["resultType"]) != `"complete"` || info.Server == nil || info.Server.Name != "switchboard" {
						t.Errorf("a 2026-07-28 result without its type or naming another than the gateway: %s", m.raw)
					}
					if _, isList := m.Result["tools"]; isList && string(m.Result["cacheScope"]) != `"private"` {
						t.Errorf("a list cached other than privately: %s", m.raw)
					}
				}
				if checked < results {
					t.Errorf("%d of %d results checked against the %s schema", checked, results, era)
				}
				if results < 8 {
					t.Errorf("the transcript holds %d results, want every answer:\n%v", results, msgs)
				}
			})
		}
	}
}

// rpc posts one JSON-RPC request of 2026-07-28 to url with key and returns
// the response's message (the last of its stream, if it streams).
func rpc(t *testing.T, url, key, method string, params map[string]any) (message, *http.Response) {
	t.Helper()
	resp, tr := post(t, rawRequest{url: url, key: key, era: "2026-07-28", method: method, params: params, id: 1, caps: map[string]any{}})
	msgs := tr.messages(t)
	if len(msgs) == 0 {
		t.Fatalf("%s: %s with no message: %s", method, resp.Status, tr.bodies[0])
	}
	return msgs[len(msgs)-1], resp
}

// rawRequest is one JSON-RPC request as an agent of era writes it by hand:
// on the session sess, or, without one, per request (with its _meta, the
// client's capabilities caps).
type rawRequest struct {
	url, key, era, sess string
	method              string
	params              map[string]any
	id                  int
	caps                map[string]any
}

// post sends r and returns the response with its body read.
func post(t *testing.T, r rawRequest) (*http.Response, *transcript) {
	t.Helper()
	params := r.params
	if params == nil {
		params = map[string]any{}
	}
	if r.sess == "" {
		params["_meta"] = map[string]any{
			mcp.MetaKeyProtocolVersion:    r.era,
			mcp.MetaKeyClientInfo:         map[string]any{"name": "raw", "version": "1"},
			mcp.MetaKeyClientCapabilities: r.caps,
		}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": r.id, "method": r.method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, r.url, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+r.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", r.era)
	if r.sess != "" {
		req.Header.Set("Mcp-Session-Id", r.sess)
	} else {
		req.Header.Set("Mcp-Method", r.method)
		if name, ok := params["name"].(string); ok {
			req.Header.Set("Mcp-Name", name)
		}
	}
	resp, err := (&http.Client{Timeout: waitFor}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	tr := &transcript{bodies: []*bytes.Buffer{{}}}
	io.Copy(tr.bodies[0], resp.Body)
	return resp, tr
}

// A 2026-07-28 agent needs no session and no initialize: it discovers the
// gateway, then each request carries what the gateway needs, so any
// replica serves it. Here two gateways over the same sessions (two
// replicas) share the work of one agent.
func TestA2026AgentNeedsNoSessionAndNoReplica(t *testing.T) {
	r := newRelay(t, broker.Config{})
	id := r.add("alice", "notes", startUpstream(t).url)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	other := gateway.New(gateway.Config{Sessions: r.m, Auth: r.keys})
	hs := httptest.NewServer(other)
	t.Cleanup(func() { other.Close(); hs.CloseClientConnections(); hs.Close() })

	disc, resp := rpc(t, r.url+gateway.Path, "k1", "server/discover", nil)
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("discovery opened a session %q", resp.Header.Get("Mcp-Session-Id"))
	}
	var versions []string
	json.Unmarshal(disc.Result["supportedVersions"], &versions)
	for _, want := range agentEras {
		if !strings.Contains(strings.Join(versions, " "), want) {
			t.Errorf("discovery lists %v, lacking %s", versions, want)
		}
	}
	var caps mcp.ServerCapabilities
	if err := json.Unmarshal(disc.Result["capabilities"], &caps); err != nil || caps.Tools == nil || caps.Extensions["io.modelcontextprotocol/ui"] == nil {
		t.Errorf("discovered capabilities %s (%v)", disc.Result["capabilities"], err)
	}

	// The other replica, which has never seen this agent, lists and calls.
	list, _ := rpc(t, hs.URL+gateway.Path, "k1", "tools/list", nil)
	if !strings.Contains(string(list.Result["tools"]), `"`+id+`__echo"`) {
		t.Fatalf("the other replica lists %s", list.raw)
	}
	call, _ := rpc(t, hs.URL+gateway.Path, "k1", "tools/call", map[string]any{"name": id + "__echo", "arguments": map[string]any{"a": 7}})
	if string(call.Result["resultType"]) != `"complete"` || !strings.Contains(string(call.Result["content"]), `\"a\":7`) {
		t.Errorf("call on the other replica: %s", call.raw)
	}
	if recs := r.recs.all(); len(recs) != 1 || recs[0].Agent != "Claude" || recs[0].Tool != "echo" {
		t.Errorf("the call's activity: %+v", recs)
	}

	// A retry naming no call in progress is refused, not run again.
	retry, _ := rpc(t, r.url+gateway.Path, "k1", "tools/call", map[string]any{"name": id + "__echo", "arguments": map[string]any{"a": 8},
		"requestState": "not-a-call", "inputResponses": map[string]any{}})
	if retry.Result != nil || !strings.Contains(retry.raw, "requestState") {
		t.Errorf("a retry of no call: %s", retry.raw)
	}
	if recs := r.recs.all(); len(recs) != 1 {
		t.Errorf("a retry of no call ran the tool: %+v", recs)
	}

	// initialize and ping belong to the earlier eras.
	if m, _ := rpc(t, r.url+gateway.Path, "k1", "ping", nil); m.Result != nil {
		t.Errorf("ping answered in 2026-07-28: %s", m.raw)
	}
}

// A resource update reaches an agent of each era: on its session's stream
// after resources/subscribe before 2026-07-28, through subscriptions/listen
// from then on; the server hears the subscription while the agent holds it.
func TestResourceUpdatesReachAgentsOfEachEra(t *testing.T) {
	srv, subscribed, unsubscribed := subscribableServer()
	r := newRelay(t, broker.Config{})
	id := r.add("alice", "subs", serveUpstream(t, srv))
	exposed := "switchboard-" + id + "+note://one"
	for _, era := range agentEras {
		t.Run(era, func(t *testing.T) {
			key := "k" + era
			r.keys.put(key, agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: key})
			updated := make(chan string, 8)
			client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
				ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
			})
			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			tr := &transcript{key: key}
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.url + gateway.Path, HTTPClient: &http.Client{Transport: tr}},
				&mcp.ClientSessionOptions{ProtocolVersion: era})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: exposed}); err != nil {
				t.Fatal(err)
			}
			select {
			case uri := <-subscribed:
				if uri != "note://one" {
					t.Errorf("the server was subscribed to %q", uri)
				}
			case <-ctx.Done():
				t.Fatal("the server heard no subscription")
			}
			srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "note://one"})
			select {
			case uri := <-updated:
				if uri != exposed {
					t.Errorf("the agent heard of %q, want %q", uri, exposed)
				}
			case <-ctx.Done():
				t.Fatal("the update did not reach the agent")
			}
			if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: exposed}); err != nil {
				t.Fatal(err)
			}
			select {
			case <-unsubscribed:
			case <-ctx.Done():
				t.Fatal("the server was not told the agent let go")
			}
			listened := false
			for _, m := range tr.messages(t) {
				listened = listened || m.Method == "notifications/subscriptions/acknowledged"
			}
			if listened != (era >= "2026-07-28") {
				t.Errorf("%s: subscriptions/listen acknowledged: %v", era, listened)
			}
		})
	}
}

// Two sessions of one key subscribe to one resource: the first letting go
// leaves the other's subscription whole (the server still holds it and the
// update reaches the other); the last ending, even without unsubscribing,
// tells the server.
func TestASubscriptionLastsWhileAnySessionOfTheKeyHoldsIt(t *testing.T) {
	srv, subscribed, unsubscribed := subscribableServer()
	r := newRelay(t, broker.Config{})
	id := r.add("alice", "subs", serveUpstream(t, srv))
	exposed := "switchboard-" + id + "+note://one"
	for _, era := range agentEras {
		t.Run(era, func(t *testing.T) {
			key := "k" + era
			r.keys.put(key, agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: key})
			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			connect := func(updated chan string) *mcp.ClientSession {
				client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
					ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
				})
				cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.url + gateway.Path, HTTPClient: &http.Client{Transport: &transcript{key: key}}},
					&mcp.ClientSessionOptions{ProtocolVersion: era})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cs.Close() })
				if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: exposed}); err != nil {
					t.Fatal(err)
				}
				return cs
			}
			firstHeard, otherHeard := make(chan string, 8), make(chan string, 8)
			first := connect(firstHeard)
			<-subscribed
			other := connect(otherHeard)
			if err := first.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: exposed}); err != nil {
				t.Fatal(err)
			}
			srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "note://one"})
			select {
			case <-otherHeard:
			case <-ctx.Done():
				t.Fatal("the other session's subscription ended with the first's")
			}
			select {
			case <-unsubscribed:
				t.Fatal("the server was told to let go while a session still held the subscription")
			default:
			}
			// The other ends without unsubscribing: the server is told.
			other.Close()
			select {
			case <-unsubscribed:
			case <-ctx.Done():
				t.Fatal("the server still holds the subscription of sessions that ended")
			}
		})
	}
}

// subscribableServer is a server of one resource, note://one, that says on
// its channels each URI it is subscribed to and let go of.
func subscribableServer() (srv *mcp.Server, subscribed, unsubscribed chan string) {
	subscribed, unsubscribed = make(chan string, 8), make(chan string, 8)
	srv = mcp.NewServer(&mcp.Implementation{Name: "subs", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
			subscribed <- req.Params.URI
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, req *mcp.UnsubscribeRequest) error {
			unsubscribed <- req.Params.URI
			return nil
		},
	})
	srv.AddResource(&mcp.Resource{URI: "note://one", Name: "one"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "note://one", Text: "one"}}}, nil
		})
	return srv, subscribed, unsubscribed
}
