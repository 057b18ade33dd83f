package chat_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/relay/chat"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// waitFor bounds every wait of these tests.
const waitFor = 10 * time.Second

// user is the person of these tests.
const user = "ada"

// Tools of the test server.
const (
	toolEcho  = "echo"  // read-only: answers its text
	toolWrite = "write" // not read-only: answers "wrote <text>"
	toolAsk   = "ask"   // asks the person's name with a form, answers "Hello, <name>!"
	toolSlow  = "slow"  // reports progress, then waits until cancelled
	// promptBrief is a prompt with one argument, topic; resourceURI a
	// resource whose text is resourceText.
	promptBrief  = "brief"
	resourceURI  = "test://notes"
	resourceText = "The notes say: bring an umbrella."
	// formMessage is the ask tool's question, which the model must never see.
	formMessage = "What is your secret name?"
)

// testModels are the test's configured models: each a real client of a
// model fixture.
type testModels struct {
	mu     sync.Mutex
	byName map[string]llm.Model
	order  []string
}

func (m *testModels) Model(_ context.Context, _, name string) (llm.Model, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.byName[name]; ok {
		return c, nil
	}
	return nil, wire.NewError(wire.CodeNotConfigured, "no such model")
}

func (m *testModels) Default() string    { return m.order[0] }
func (m *testModels) Images(string) bool { return false }
func (m *testModels) put(name string, model llm.Model) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.byName[name] = model
	m.order = append(m.order, name)
}

func (m *testModels) add(t *testing.T, name string, fx *modelfixture.Server, kind llm.Kind) {
	t.Helper()
	url := fx.OpenAIURL()
	if kind == llm.Anthropic {
		url = fx.AnthropicURL()
	}
	c, err := llm.New(llm.Config{Kind: kind, URL: url, Model: name, HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0)})
	if err != nil {
		t.Fatal(err)
	}
	m.put(name, c)
}

// relay is a user's sessions, the chat room and its ops, over a real
// store, with one MCP server ready.
type relay struct {
	t      *testing.T
	st     *store.Store
	m      *session.Manager
	room   *chat.Room
	ops    *ops.Mux
	models *testModels
	model  *modelfixture.Server
	server string // the MCP server's id
	dir    string // the data directory
	// failTurn, when set, stands in for the room's writes of a turn: a
	// store that fails, as on a full disk.
	failTurn atomic.Pointer[func() error]
}

// roomStore is the store as the room sees it: the real one, whose writes
// of turns are failTurn while it is set.
type roomStore struct {
	*store.Store
	failTurn *atomic.Pointer[func() error]
}

func (s roomStore) PutTurn(ctx context.Context, user string, t wire.ChatTurn) error {
	if fail := s.failTurn.Load(); fail != nil {
		return (*fail)()
	}
	return s.Store.PutTurn(ctx, user, t)
}

// newRelay starts a relay whose chat has one model, "m1", on an OpenAI
// fixture, and a test MCP server; maxSteps 0 is the default.
func newRelay(t *testing.T, maxSteps int) *relay {
	t.Helper()
	r := &relay{t: t, dir: t.TempDir(), models: &testModels{byName: map[string]llm.Model{}}}
	r.model = modelfixture.Start(t, modelfixture.Options{})
	r.models.add(t, "m1", r.model, llm.OpenAI)
	r.open(r.dir, maxSteps)
	t.Cleanup(r.close)
	r.server = r.add("tools", testServer(t))
	return r
}

// open opens the store in dir and starts the sessions and the room on it.
func (r *relay) open(dir string, maxSteps int) {
	t := r.t
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	mux := ops.NewMux()
	var room *chat.Room
	m := session.NewManager(session.Config{Store: st, Logger: logger, Ops: mux,
		Chats: func(ctx context.Context, u string) ([]wire.Chat, error) { return room.Load(ctx, u) },
		Dial: func(d session.Dial, emit func(conn.State)) session.Connection {
			return conn.Start(conn.Config{ID: d.Reg.ID, Name: d.Reg.Name, URL: d.Reg.URL, Logger: logger,
				HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0), HealthInterval: time.Minute,
				RetryMin: 50 * time.Millisecond, RetryMax: 400 * time.Millisecond,
				Asker: d.Asker, Modes: d.Modes, Transport: wire.Transport(d.Reg.Transport)}, emit)
		}})
	room = chat.New(chat.Config{Sessions: m, Store: roomStore{st, &r.failTurn}, Models: r.models, Logger: logger, MaxSteps: maxSteps})
	if err := room.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	room.HandleOps(mux)
	if err := m.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.st, r.m, r.room, r.ops = st, m, room, mux
}

// close stops the room, the sessions and the store, once.
func (r *relay) close() {
	if r.st == nil {
		return
	}
	r.room.Close()
	r.m.Close()
	r.st.Close()
	r.st = nil
}

// restart stops the relay and opens it again on the same data.
func (r *relay) restart() {
	r.close()
	r.open(r.dir, 0)
}

// add registers the MCP server at url as name and waits until it is ready.
func (r *relay) add(name, url string) string {
	r.t.Helper()
	s := r.m.Session(user)
	res, err := s.AddServer(context.Background(), name, url)
	if err != nil {
		r.t.Fatal(err)
	}
	r.until("the server is ready", func(snap wire.Snapshot) bool {
		srv := snap.ServerByID(res.ID)
		return srv != nil && srv.State == wire.StateReady
	})
	return res.ID
}

// op runs an op of the user and decodes its result into out (when not nil).
func (r *relay) op(name wire.OpName, args, out any) error {
	r.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		r.t.Fatal(err)
	}
	res, err := r.ops.Serve(context.Background(), ops.Request{User: user, Op: name, Args: raw})
	if err != nil || out == nil {
		return err
	}
	b, err := json.Marshal(res)
	if err != nil {
		r.t.Fatal(err)
	}
	return json.Unmarshal(b, out)
}

// must is op, failing the test on an error.
func (r *relay) must(name wire.OpName, args, out any) {
	r.t.Helper()
	if err := r.op(name, args, out); err != nil {
		r.t.Fatalf("%s: %v", name, err)
	}
}

// newChat creates a conversation with the given models (default m1).
func (r *relay) newChat(models ...string) []wire.Chat {
	r.t.Helper()
	var res wire.CreateChatResult
	r.must(wire.OpCreateChat, wire.CreateChatArgs{Models: models}, &res)
	return res.Chats
}

// until waits for the user's state to satisfy ok, and returns it.
func (r *relay) until(what string, ok func(wire.Snapshot) bool) wire.Snapshot {
	r.t.Helper()
	s := r.m.Session(user)
	changed := make(chan struct{}, 1)
	sub := s.Subscribe(wire.Hello{})
	defer sub.Close()
	stop := s.Watch(func(string) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer stop()
	deadline := time.After(waitFor)
	for {
		snap, _ := s.Snapshot()
		if ok(snap) {
			return snap
		}
		select {
		case <-changed:
		case <-sub.Outbox():
		case <-deadline:
			r.t.Fatalf("%s: not within %v", what, waitFor)
		}
	}
}

// turnOf is the state's latest turn of chat, if any.
func turnOf(snap wire.Snapshot, chat string) (wire.ChatTurn, bool) {
	i := slices.IndexFunc(snap.ChatTurns, func(t wire.ChatTurn) bool { return t.Chat == chat })
	if i < 0 {
		return wire.ChatTurn{}, false
	}
	return snap.ChatTurns[i], true
}

// ended waits for the latest turn of chat to end, and returns it.
func (r *relay) ended(chat string) wire.ChatTurn {
	r.t.Helper()
	snap := r.until("the turn ends", func(snap wire.Snapshot) bool {
		t, ok := turnOf(snap, chat)
		return ok && t.Status != wire.TurnRunning
	})
	t, _ := turnOf(snap, chat)
	return t
}

// card waits for a tool card of chat's latest turn in state, and returns it.
func (r *relay) card(chat string, state wire.ToolCallState) wire.ChatToolCall {
	r.t.Helper()
	var found wire.ChatToolCall
	r.until("a card "+string(state), func(snap wire.Snapshot) bool {
		t, _ := turnOf(snap, chat)
		for _, p := range t.Parts {
			if p.Tool != nil && p.Tool.State == state {
				found = *p.Tool
				return true
			}
		}
		return false
	})
	return found
}

// testServer serves the test tools on loopback and returns its URL.
func testServer(t *testing.T) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "tools", Version: "1"}, nil)
	type text struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: toolEcho, Description: "Echoes.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in text) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: toolWrite, Description: "Writes."},
		func(_ context.Context, _ *mcp.CallToolRequest, in text) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wrote " + in.Text}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: toolAsk, Description: "Asks the person's name.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: formMessage,
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + res.Content["name"].(string) + "!"}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: toolSlow, Description: "Runs until cancelled.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 10, Message: "started"})
			}
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	srv.AddPrompt(&mcp.Prompt{Name: promptBrief, Arguments: []*mcp.PromptArgument{{Name: "topic", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user",
				Content: &mcp.TextContent{Text: "Brief me on " + req.Params.Arguments["topic"] + "."}}}}, nil
		})
	srv.AddResource(&mcp.Resource{URI: resourceURI, Name: "notes", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: resourceURI, MIMEType: "text/plain", Text: resourceText}}}, nil
		})
	return fixture.ServeOnce(t, srv).URL()
}
