package conn

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// askCall is one call of a scriptedAsker's Elicit or Sample, waiting for
// the test's reply.
type askCall struct {
	ctx    context.Context
	p      *mcp.ElicitParams                 // an elicitation's
	sample *mcp.CreateMessageWithToolsParams // a sampling request's
	from   Origin
	reply  chan askReply
}

type askReply struct {
	ans Answer
	res *mcp.CreateMessageWithToolsResult
	err error
}

// answer replies to an elicitation.
func (c askCall) answer(ans Answer, err error) { c.reply <- askReply{ans: ans, err: err} }

// answerSample replies to a sampling request.
func (c askCall) answerSample(res *mcp.CreateMessageWithToolsResult, err error) {
	c.reply <- askReply{res: res, err: err}
}

// accept is the answer accepting an elicitation with content.
func accept(content map[string]any) Answer {
	return Answer{Result: &mcp.ElicitResult{Action: "accept", Content: content}}
}

// decline is the answer declining an elicitation.
var decline = Answer{Result: &mcp.ElicitResult{Action: "decline"}}

// scriptedAsker hands every ask to the test, which answers it.
type scriptedAsker struct {
	calls     chan askCall
	completed chan string
}

func newScriptedAsker() *scriptedAsker {
	return &scriptedAsker{calls: make(chan askCall, 16), completed: make(chan string, 16)}
}

// ask hands call to the test and waits for its reply or ctx's end.
func (s *scriptedAsker) ask(call askCall) askReply {
	call.reply = make(chan askReply, 1)
	s.calls <- call
	select {
	case r := <-call.reply:
		return r
	case <-call.ctx.Done():
		return askReply{err: call.ctx.Err()}
	}
}

func (s *scriptedAsker) Elicit(ctx context.Context, p *mcp.ElicitParams, from Origin) (Answer, error) {
	r := s.ask(askCall{ctx: ctx, p: p, from: from})
	return r.ans, r.err
}

func (s *scriptedAsker) Sample(ctx context.Context, p *mcp.CreateMessageWithToolsParams, from Origin) (*mcp.CreateMessageWithToolsResult, error) {
	r := s.ask(askCall{ctx: ctx, sample: p, from: from})
	return r.res, r.err
}

func (s *scriptedAsker) Complete(id string) { s.completed <- id }

// next returns the next ask.
func (s *scriptedAsker) next(t *testing.T) askCall {
	t.Helper()
	select {
	case c := <-s.calls:
		return c
	case <-time.After(waitFor):
		t.Fatal("nothing was asked")
	}
	return askCall{}
}

// none fails if anything was asked.
func (s *scriptedAsker) none(t *testing.T) {
	t.Helper()
	select {
	case c := <-s.calls:
		t.Fatalf("asked %+v", c)
	default:
	}
}

// outcome is what a fixture tool reports of its elicitation.
type outcome struct {
	Action  string         `json:"action,omitempty"`
	Content map[string]any `json:"content,omitempty"`
	Meta    map[string]any `json:"meta,omitempty"`
	Code    int64          `json:"code,omitempty"`
	Error   string         `json:"error,omitempty"`
}

// report turns an elicitation's result into a tool result.
func report(res *mcp.ElicitResult, err error) *mcp.CallToolResult {
	var o outcome
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		o.Code, o.Error = rpcErr.Code, rpcErr.Message
	case err != nil:
		o.Error = err.Error()
	default:
		o.Action, o.Content, o.Meta = res.Action, res.Content, res.Meta
	}
	b, _ := json.Marshal(o)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}

// outcomeOf reads a fixture tool's report: outcomeOf(t)(c.CallTool(...)).
func outcomeOf(t *testing.T) func(*mcp.CallToolResult, error) outcome {
	return func(res *mcp.CallToolResult, err error) outcome {
		t.Helper()
		if err != nil {
			t.Fatalf("call: %v", err)
		}
		var o outcome
		if len(res.Content) != 1 || json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &o) != nil {
			t.Fatalf("result %+v is not an outcome", res)
		}
		return o
	}
}

// addElicitTool adds a tool that sends the elicitation params makes, under
// the context ctxOf derives from the call's, and reports the result.
func addElicitTool(s *mcp.Server, name string, params func() *mcp.ElicitParams, ctxOf func(context.Context) context.Context) {
	s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if ctxOf != nil {
				ctx = ctxOf(ctx)
			}
			return report(req.Session.Elicit(ctx, params())), nil
		})
}

const testSchema = `{"type":"object","properties":{
	"name":{"type":"string","title":"Name","minLength":2,"default":"Ada"},
	"count":{"type":"integer","minimum":1,"maximum":9,"default":3},
	"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"default":["a"]},
	"ok":{"type":"boolean","default":true}
},"required":["name"]}`

func formParams() *mcp.ElicitParams {
	return &mcp.ElicitParams{Message: "Who are you?", RequestedSchema: json.RawMessage(testSchema)}
}

func urlParams(id string) func() *mcp.ElicitParams {
	return func() *mcp.ElicitParams {
		return &mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://example.com/consent", ElicitationID: id}
	}
}

// elicitConfig is a test config whose connection elicits through asker.
func elicitConfig(url string, asker Asker, modes AskModes) Config {
	cfg := testConfig(url)
	cfg.Asker, cfg.Modes = asker, modes
	return cfg
}

// startAsking connects to f with asker and waits until ready.
func startAsking(t *testing.T, f *fixture, asker Asker, modes AskModes) (*Conn, *recorder) {
	t.Helper()
	c, r := start(t, elicitConfig(f.url, asker, modes))
	r.AwaitState(wire.StateReady)
	return c, r
}

// callAsync calls a tool in the background.
func callAsync(c *Conn, ctx context.Context, name string) <-chan outcomeOrErr {
	out := make(chan outcomeOrErr, 1)
	go func() {
		res, err := c.CallTool(ctx, toolCall(name, nil), nil)
		out <- outcomeOrErr{res, err}
	}()
	return out
}

type outcomeOrErr struct {
	res *mcp.CallToolResult
	err error
}

func awaitCall(t *testing.T, ch <-chan outcomeOrErr) (*mcp.CallToolResult, error) {
	t.Helper()
	select {
	case r := <-ch:
		return r.res, r.err
	case <-time.After(waitFor):
		t.Fatal("the call did not return")
	}
	return nil, nil
}

func TestElicitationCapabilityFollowsTheConfig(t *testing.T) {
	tests := []struct {
		name      string
		asker     Asker
		modes     AskModes
		form, url bool
		none      bool
	}{
		{name: "both", asker: AcceptDefaults{}, modes: AllAskModes, form: true, url: true},
		{name: "form only", asker: AcceptDefaults{}, modes: AskModes{Form: true}, form: true},
		{name: "url only", asker: AcceptDefaults{}, modes: AskModes{URL: true}, url: true},
		{name: "no modes", asker: AcceptDefaults{}, none: true},
		{name: "no asker", modes: AllAskModes, none: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, legacyEra, nil)
			f.server.AddTool(&mcp.Tool{Name: "caps", InputSchema: map[string]any{"type": "object"}},
				func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					b, _ := json.Marshal(req.Session.InitializeParams().Capabilities)
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
				})
			c, _ := startAsking(t, f, tt.asker, tt.modes)
			res, err := c.CallTool(context.Background(), toolCall("caps", nil), nil)
			if err != nil {
				t.Fatal(err)
			}
			var caps mcp.ClientCapabilities
			if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &caps); err != nil {
				t.Fatal(err)
			}
			if tt.none {
				if caps.Elicitation != nil {
					t.Fatalf("advertised elicitation %+v, want none", caps.Elicitation)
				}
				return
			}
			if caps.Elicitation == nil || (caps.Elicitation.Form != nil) != tt.form || (caps.Elicitation.URL != nil) != tt.url {
				t.Fatalf("advertised %s, want form %t url %t", res.Content[0].(*mcp.TextContent).Text, tt.form, tt.url)
			}
		})
	}
}

func TestFormElicitationIsAskedAndAnswered(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	addElicitTool(f.server, "ask", formParams, nil)
	asker := newScriptedAsker()
	c, _ := startAsking(t, f, asker, AllAskModes)

	done := callAsync(c, context.Background(), "ask")
	call := asker.next(t)
	if p := call.p; p == nil || elicitMode(p) != modeForm || call.from != FromRequest || p.Message != "Who are you?" {
		t.Fatalf("asked %+v from %v", p, call.from)
	}
	if schema, _ := call.p.RequestedSchema.(json.RawMessage); !strings.Contains(string(schema), `"minLength":2`) {
		t.Errorf("schema %v", call.p.RequestedSchema)
	}
	call.answer(accept(map[string]any{"name": "Grace", "count": 4.0, "tags": []any{"b"}, "ok": false}), nil)
	o := outcomeOf(t)(awaitCall(t, done))
	if o.Action != "accept" || o.Content["name"] != "Grace" || o.Content["count"] != 4.0 || o.Content["ok"] != false {
		t.Fatalf("the server got %+v", o)
	}
}

func TestInputRequestsAreAskedLikeElicitations(t *testing.T) {
	f := newFixture(t, statelessEra, nil)
	f.server.AddTool(&mcp.Tool{Name: "input", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if r, ok := req.Params.InputResponses["who"].(*mcp.ElicitResult); ok {
				return report(r, nil), nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"who": formParams()}, RequestState: "round-1"}, nil
		})
	asker := newScriptedAsker()
	c, _ := startAsking(t, f, asker, AllAskModes)

	done := callAsync(c, context.Background(), "input")
	call := asker.next(t)
	if p := call.p; p == nil || elicitMode(p) != modeForm || call.from != FromInput || p.Message != "Who are you?" {
		t.Fatalf("asked %+v from %v, want a form from an input request", p, call.from)
	}
	call.answer(accept(map[string]any{"name": "Grace"}), nil)
	o := outcomeOf(t)(awaitCall(t, done))
	if o.Action != "accept" || o.Content["name"] != "Grace" {
		t.Fatalf("the server got %+v", o)
	}
}

func TestAcceptDefaultsAnswersWithTheSchemaDefaults(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	addElicitTool(f.server, "ask", formParams, nil)
	addElicitTool(f.server, "url", urlParams("e1"), nil)
	c, _ := startAsking(t, f, AcceptDefaults{}, AllAskModes)

	o := outcomeOf(t)(c.CallTool(context.Background(), toolCall("ask", nil), nil))
	want := map[string]any{"name": "Ada", "count": 3.0, "tags": []any{"a"}, "ok": true}
	if o.Action != "accept" || !jsonEqual(o.Content, want) {
		t.Errorf("the server got %+v, want accept with %v", o, want)
	}
	if o := outcomeOf(t)(c.CallTool(context.Background(), toolCall("url", nil), nil)); o.Action != "decline" {
		t.Errorf("url: the server got %+v, want decline", o)
	}
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// lie makes a server believe its client advertised both elicitation modes,
// so that it sends requests the client did not advertise.
func lie(s *mcp.Server) {
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.InitializeParams); ok {
				if p.Capabilities == nil {
					p.Capabilities = &mcp.ClientCapabilities{}
				}
				p.Capabilities.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
			}
			return next(ctx, method, req)
		}
	})
}

func TestElicitationInAModeNotAdvertisedIsInvalidParams(t *testing.T) {
	tests := []struct {
		name  string
		modes AskModes
		tool  func() *mcp.ElicitParams
	}{
		{"url to a form-only client", AskModes{Form: true}, urlParams("e1")},
		{"form to a url-only client", AskModes{URL: true}, formParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, legacyEra, nil)
			lie(f.server)
			addElicitTool(f.server, "ask", tt.tool, nil)
			asker := newScriptedAsker()
			c, _ := startAsking(t, f, asker, tt.modes)
			o := outcomeOf(t)(c.CallTool(context.Background(), toolCall("ask", nil), nil))
			if o.Code != jsonrpc.CodeInvalidParams || !strings.Contains(o.Error, "not supported") {
				t.Fatalf("the server got %+v, want -32602", o)
			}
			asker.none(t)
		})
	}
}

// The go-sdk sends notifications/cancelled for a server's request
// asynchronously, on the stream of the call it relates to: a tool that
// cancels its elicitation must keep its call open for a moment, or the
// notification is lost and the ask waits for its deadline.
func TestServerCancellingItsElicitationWithdrawsTheAsk(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	cancelAsk, release := make(chan struct{}), make(chan struct{})
	ended := make(chan error, 1)
	f.server.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			askCtx, cancel := context.WithCancel(ctx)
			go func() {
				<-cancelAsk
				cancel()
			}()
			_, err := req.Session.Elicit(askCtx, formParams())
			ended <- err
			<-release
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "gave up"}}}, nil
		})
	asker := newScriptedAsker()
	c, _ := startAsking(t, f, asker, AllAskModes)
	callAsync(c, context.Background(), "ask")
	call := asker.next(t)
	close(cancelAsk)
	defer close(release)
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("the server's elicitation ended with %v", err)
	}
	select {
	case <-call.ctx.Done():
	case <-time.After(waitFor):
		t.Fatal("the ask was not withdrawn when the server cancelled its request")
	}
}

func TestConnectionDropWithdrawsTheAsk(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	addElicitTool(f.server, "ask", formParams, nil)
	asker := newScriptedAsker()
	c, r := startAsking(t, f, asker, AllAskModes)
	done := callAsync(c, context.Background(), "ask")
	call := asker.next(t)
	f.stop()
	select {
	case <-call.ctx.Done():
	case <-time.After(waitFor):
		t.Fatal("the ask was not withdrawn when the connection dropped")
	}
	if _, err := awaitCall(t, done); err == nil {
		t.Error("the call succeeded after the connection dropped")
	}
	r.AwaitState(wire.StateFailed)
}

func TestAcceptedURLWaitsWhileTheSessionLives(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	var session *mcp.ServerSession
	var mu sync.Mutex
	f.server.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			session = req.Session
			mu.Unlock()
			return report(req.Session.Elicit(ctx, urlParams("e\x1b1")())), nil
		})
	asker := newScriptedAsker()
	c, _ := startAsking(t, f, asker, AllAskModes)
	done := callAsync(c, context.Background(), "ask")
	call := asker.next(t)
	if p := call.p; p == nil || p.Mode != modeURL || p.URL != "https://example.com/consent" || p.ElicitationID != "e\x1b1" {
		t.Fatalf("asked %+v", p)
	}
	waiting := make(chan context.Context, 1)
	call.answer(Answer{Result: &mcp.ElicitResult{Action: "accept"}, Wait: func(ctx context.Context) error {
		waiting <- ctx
		<-ctx.Done()
		return ctx.Err()
	}}, nil)
	if o := outcomeOf(t)(awaitCall(t, done)); o.Action != "accept" || o.Content != nil {
		t.Fatalf("the server got %+v, want accept without content", o)
	}
	waitCtx := <-waiting

	mu.Lock()
	err := session.NotifyElicitationComplete(context.Background(), &mcp.ElicitationCompleteParams{ElicitationID: "e\x1b1"})
	mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-asker.completed:
		if id != call.p.ElicitationID {
			t.Errorf("completed %q, want %q as in the ask", id, call.p.ElicitationID)
		}
	case <-time.After(waitFor):
		t.Fatal("the completion did not reach the asker")
	}
	if waitCtx.Err() != nil {
		t.Fatal("the wait ended before the session")
	}
	c.Close()
	select {
	case <-waitCtx.Done():
	case <-time.After(waitFor):
		t.Fatal("the wait outlived the connection")
	}
}

// urlRequiredServer serves a tool, a prompt and a resource that fail with
// -32042 until the elicitation "setup" completed; with stubborn they always
// fail.
type urlRequiredServer struct {
	mu        sync.Mutex
	completed bool
	stubborn  bool
	session   *mcp.ServerSession
}

func (u *urlRequiredServer) check(ss *mcp.ServerSession) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.session = ss
	if u.completed && !u.stubborn {
		return nil
	}
	return mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{Mode: "url", Message: "Connect your account", URL: "https://example.com/setup", ElicitationID: "setup"}})
}

// complete marks the elicitation done and notifies the client, as the
// server would once the person finished at the URL.
func (u *urlRequiredServer) complete() error {
	u.mu.Lock()
	u.completed = true
	ss := u.session
	u.mu.Unlock()
	return ss.NotifyElicitationComplete(context.Background(), &mcp.ElicitationCompleteParams{ElicitationID: "setup"})
}

func (u *urlRequiredServer) add(s *mcp.Server) {
	s.AddTool(&mcp.Tool{Name: "guarded", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := u.check(req.Session); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "test://guarded", Name: "guarded"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			if err := u.check(req.Session); err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://guarded", Text: "done"}}}, nil
		})
}

func TestURLRequiredIsRetriedOnceCompleted(t *testing.T) {
	ops := []struct {
		name string
		run  func(c *Conn) (string, error)
	}{
		{"tool", func(c *Conn) (string, error) {
			res, err := c.CallTool(context.Background(), toolCall("guarded", nil), nil)
			if err != nil {
				return "", err
			}
			return res.Content[0].(*mcp.TextContent).Text, nil
		}},
		{"resource", func(c *Conn) (string, error) {
			res, err := c.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://guarded"})
			if err != nil {
				return "", err
			}
			return res.Contents[0].Text, nil
		}},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			f := newFixture(t, legacyEra, nil)
			u := &urlRequiredServer{}
			u.add(f.server)
			asker := newScriptedAsker()
			c, _ := startAsking(t, f, asker, AllAskModes)

			type got struct {
				text string
				err  error
			}
			done := make(chan got, 1)
			go func() {
				text, err := op.run(c)
				done <- got{text, err}
			}()
			call := asker.next(t)
			if p := call.p; p == nil || p.Mode != modeURL || call.from != FromURLRequired || p.URL != "https://example.com/setup" || p.ElicitationID != "setup" || p.Message != "Connect your account" {
				t.Fatalf("asked %+v from %v", p, call.from)
			}
			completed := make(chan struct{})
			call.answer(Answer{Result: &mcp.ElicitResult{Action: "accept"}, Wait: func(ctx context.Context) error {
				select {
				case <-completed:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}}, nil)
			if err := u.complete(); err != nil {
				t.Fatal(err)
			}
			if id := <-asker.completed; id != "setup" {
				t.Fatalf("completed %q", id)
			}
			close(completed)
			select {
			case g := <-done:
				if g.err != nil || g.text != "done" {
					t.Fatalf("after completion: %q, %v; want done", g.text, g.err)
				}
			case <-time.After(waitFor):
				t.Fatal("the operation was not retried")
			}
			asker.none(t)
		})
	}
}

func TestURLRequiredAgainAfterCompletionIsAnError(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	u := &urlRequiredServer{stubborn: true}
	u.add(f.server)
	asker := newScriptedAsker()
	c, _ := startAsking(t, f, asker, AllAskModes)
	done := callAsync(c, context.Background(), "guarded")
	asker.next(t).answer(accept(nil), nil) // no Wait: complete at once
	_, err := awaitCall(t, done)
	if err == nil || errCode(t, err) != Unusable || !strings.Contains(err.Error(), "asked again") {
		t.Fatalf("call = %v, want an unusable-answer error saying the server asked again", err)
	}
	asker.none(t)
}

func TestURLRequiredDeclinedFailsTheCall(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	u := &urlRequiredServer{}
	u.add(f.server)
	asker := newScriptedAsker()
	c, _ := startAsking(t, f, asker, AllAskModes)
	done := callAsync(c, context.Background(), "guarded")
	asker.next(t).answer(decline, nil)
	if _, err := awaitCall(t, done); err == nil || !strings.Contains(err.Error(), "declined") {
		t.Fatalf("call = %v, want an error saying it was declined", err)
	}
}

func TestURLRequiredWithoutURLModeReachesTheCaller(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	u := &urlRequiredServer{}
	u.add(f.server)
	asker := newScriptedAsker()
	c, _ := startAsking(t, f, asker, AskModes{Form: true})
	_, err := c.CallTool(context.Background(), toolCall("guarded", nil), nil)
	if err == nil || !strings.Contains(err.Error(), "URL elicitation required") {
		t.Fatalf("call = %v, want the server's -32042 error", err)
	}
	asker.none(t)
}
