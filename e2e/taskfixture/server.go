package taskfixture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
)

// Tool names.
const (
	ToolResearch = "research" // taskSupport required: steps, then a report on its "topic"
	ToolQuick    = "quick"    // taskSupport optional: finishes after one step
	ToolEcho     = "echo"     // no task support: echoes "text"
)

// MethodCreate is the custom method a task-augmented tools/call becomes.
const MethodCreate = "fixture/createTask"

// Config tunes a fixture.
type Config struct {
	Steps int           // steps of a research task; default 3
	Step  time.Duration // the duration of one step; default 300ms
	// Paced makes each step last until the test calls Advance, instead of
	// Step, so that a test can see a step however slow the machine is; a
	// task never advanced works until it is cancelled.
	Paced bool
	// NoTaskCapability declares no tasks capability, so that the research
	// tool, which requires tasks, cannot be called.
	NoTaskCapability bool
	// PollInterval is the pollInterval the tasks suggest; default 200ms.
	PollInterval time.Duration
	// Hold keeps every task working after its last step until Release.
	Hold bool
	// IgnoreTasks runs task-augmented calls plainly, as a server without
	// task support must, while still declaring the capability.
	IgnoreTasks bool
	// Ask makes a research task need a person after its first step, as
	// the reference server's simulate-research-query does when ambiguous:
	// the task turns input_required, and the next tasks/result asks for a
	// clarification (elicitation/create) on its own response stream, so
	// the fixture answers with SSE streams rather than JSON. The answer is
	// reported on Answers, and the task goes on.
	Ask bool
}

// Clarification is what the fixture's research task asks for when
// Config.Ask is set.
const Clarification = "Which owls do you mean?"

// Server is a running fixture.
type Server struct {
	URL string // the MCP endpoint

	cfg Config

	mu      sync.Mutex
	next    int
	tasks   map[string]*task
	release chan struct{} // closed by Release
	advance chan struct{} // a value per Advance, buffered
	created chan string   // each created task id, buffered
	answers chan string   // what became of each clarification asked, buffered
}

type task struct {
	id      string
	status  string
	message string
	result  *mcp.CallToolResult
	created time.Time
	updated time.Time
	cancel  context.CancelFunc
	done    chan struct{} // closed when the task reaches a terminal status
	// clarified receives what became of the clarification the task asked
	// for (see Config.Ask).
	clarified chan string
}

// Start runs a fixture on 127.0.0.1 until the test ends.
func Start(t testing.TB, cfg Config) *Server {
	t.Helper()
	if cfg.Steps <= 0 {
		cfg.Steps = 3
	}
	if cfg.Step <= 0 {
		cfg.Step = 300 * time.Millisecond
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 200 * time.Millisecond
	}
	s := &Server{cfg: cfg, tasks: map[string]*task{}, release: make(chan struct{}), advance: make(chan struct{}, 64),
		created: make(chan string, 64), answers: make(chan string, 64)}
	t.Cleanup(s.cancelTasks) // after the server stopped
	opts := []fixture.Option{fixture.WrapMCP(s.wrap)}
	if !cfg.Ask {
		opts = append(opts, fixture.JSONResponse())
	}
	lb := fixture.NewLoopback(s.newMCPServer, opts...)
	fixture.Serve(t, lb)
	s.URL = lb.URL()
	return s
}

// cancelTasks ends the tasks still working.
func (s *Server) cancelTasks() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, tk := range s.tasks {
		tk.cancel()
	}
}

// Created returns the ids of the tasks created, one per receive.
func (s *Server) Created() <-chan string { return s.created }

// Answers returns what became of each clarification a research task asked
// for (Config.Ask): "accept: <interpretation>", "decline", "cancel", or
// "failed: <why>" when the request itself failed (withdrawn).
func (s *Server) Answers() <-chan string { return s.answers }

// Release lets held tasks finish.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.release:
	default:
		close(s.release)
	}
}

// Advance ends the current step of a paced task (see Config.Paced); when
// no task works, the next step to start ends at once.
func (s *Server) Advance() { s.advance <- struct{}{} }

// stepEnd returns what ends a step: Advance when paced, otherwise time.
func (s *Server) stepEnd() <-chan struct{} {
	if s.cfg.Paced {
		return s.advance
	}
	end := make(chan struct{})
	time.AfterFunc(s.cfg.Step, func() { close(end) })
	return end
}

// Status returns the status of task id ("" when unknown).
func (s *Server) Status(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tk := s.tasks[id]; tk != nil {
		return tk.status
	}
	return ""
}

func (s *Server) newMCPServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "task-fixture", Version: "1.0.0"}, nil)
	type topicArgs struct {
		Topic string `json:"topic" jsonschema:"what to research"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: ToolResearch, Description: "Researches a topic, as a task."},
		func(context.Context, *mcp.CallToolRequest, topicArgs) (*mcp.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("research runs only as a task")
		})
	mcp.AddTool(srv, &mcp.Tool{Name: ToolQuick, Description: "Finishes at once; may run as a task."},
		func(_ context.Context, _ *mcp.CallToolRequest, a topicArgs) (*mcp.CallToolResult, any, error) {
			return text("quick " + a.Topic), nil, nil
		})
	type echoArgs struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: ToolEcho, Description: "Echoes text."},
		func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			return text(a.Text), nil, nil
		})
	must(mcp.AddReceivingCustomMethod(srv, MethodCreate, s.create))
	must(mcp.AddReceivingCustomMethod(srv, "tasks/get", s.get))
	must(mcp.AddReceivingCustomMethod(srv, "tasks/cancel", s.cancelTask))
	must(mcp.AddReceivingCustomMethod(srv, "tasks/result", s.result))
	return srv
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// createParams are the params of a task-augmented tools/call.
type createParams struct {
	mcp.ParamsBase
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Task      *struct {
		TTL int64 `json:"ttl"`
	} `json:"task"`
}

type idParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// taskJSON is a task on the wire.
type taskJSON struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           int64  `json:"ttl"`
	PollInterval  int64  `json:"pollInterval"`
}

type createResult struct {
	mcp.ResultBase
	Task taskJSON `json:"task"`
}

type taskResult struct {
	mcp.ResultBase
	taskJSON
}

func (s *Server) view(tk *task) taskJSON {
	return taskJSON{
		TaskID: tk.id, Status: tk.status, StatusMessage: tk.message,
		CreatedAt: tk.created.UTC().Format(time.RFC3339Nano), LastUpdatedAt: tk.updated.UTC().Format(time.RFC3339Nano),
		TTL: int64(time.Hour / time.Millisecond), PollInterval: s.cfg.PollInterval.Milliseconds(),
	}
}

func (s *Server) create(_ context.Context, ss *mcp.ServerSession, p *createParams) (*createResult, error) {
	if p.Name != ToolResearch && p.Name != ToolQuick {
		return nil, fmt.Errorf("tool %q does not run as a task", p.Name)
	}
	topic, _ := p.Arguments["topic"].(string)
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.next++
	now := time.Now()
	tk := &task{id: fmt.Sprintf("task-%d", s.next), status: "working", message: "starting", created: now, updated: now, cancel: cancel,
		done: make(chan struct{}), clarified: make(chan string, 1)}
	s.tasks[tk.id] = tk
	v := s.view(tk)
	s.mu.Unlock()
	steps := s.cfg.Steps
	if p.Name == ToolQuick {
		steps = 1
	}
	report := func(int, int, string) {}
	if token := p.Meta["progressToken"]; token != nil {
		report = func(step, total int, msg string) {
			ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(step), Total: float64(total), Message: msg})
		}
	}
	go s.run(ctx, tk, topic, steps, report)
	s.created <- tk.id
	return &createResult{Task: v}, nil
}

// run works through the steps of tk, reporting each as progress when the
// call asked for it, then completes it.
func (s *Server) run(ctx context.Context, tk *task, topic string, steps int, report func(step, total int, msg string)) {
	for i := 1; i <= steps; i++ {
		msg := fmt.Sprintf("step %d of %d", i, steps)
		s.update(tk, "working", msg, nil)
		report(i, steps, msg)
		select {
		case <-ctx.Done():
			return
		case <-s.stepEnd():
		}
		if i == 1 && s.cfg.Ask && steps > 1 {
			s.update(tk, "input_required", "needs a clarification", nil)
			select {
			case <-ctx.Done():
				return
			case answer := <-tk.clarified:
				topic += " (" + answer + ")"
			}
		}
	}
	if s.cfg.Hold {
		s.update(tk, "working", "waiting to be released", nil)
		select {
		case <-ctx.Done():
			return
		case <-s.release:
		}
	}
	s.update(tk, "completed", "done", text("report on "+topic))
}

// update moves tk to status, unless it already ended.
func (s *Server) update(tk *task, status, message string, result *mcp.CallToolResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if terminal(tk.status) {
		return
	}
	tk.status, tk.message, tk.result, tk.updated = status, message, result, time.Now()
	if terminal(status) {
		close(tk.done)
	}
}

func terminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

func (s *Server) lookup(id string) (*task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tk := s.tasks[id]
	if tk == nil {
		return nil, &jsonrpc.Error{Code: -32602, Message: "Failed to retrieve task: Task not found"}
	}
	return tk, nil
}

func (s *Server) get(_ context.Context, _ *mcp.ServerSession, p *idParams) (*taskResult, error) {
	tk, err := s.lookup(p.TaskID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return &taskResult{taskJSON: s.view(tk)}, nil
}

func (s *Server) cancelTask(_ context.Context, _ *mcp.ServerSession, p *idParams) (*taskResult, error) {
	tk, err := s.lookup(p.TaskID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if terminal(tk.status) {
		s.mu.Unlock()
		return nil, &jsonrpc.Error{Code: -32602, Message: "the task already ended"}
	}
	s.mu.Unlock()
	tk.cancel()
	s.update(tk, "cancelled", "The task was cancelled by request.", nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	return &taskResult{taskJSON: s.view(tk)}, nil
}

func (s *Server) result(ctx context.Context, ss *mcp.ServerSession, p *idParams) (*mcp.CallToolResult, error) {
	tk, err := s.lookup(p.TaskID)
	if err != nil {
		return nil, err
	}
	if s.Status(tk.id) == "input_required" {
		tk.clarified <- s.clarify(ctx, ss)
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-tk.done:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if tk.status == "cancelled" {
		return nil, &jsonrpc.Error{Code: -32603, Message: "the task was cancelled"}
	}
	r := *tk.result
	r.Meta = mcp.Meta{"io.modelcontextprotocol/related-task": map[string]any{"taskId": tk.id}}
	return &r, nil
}

// clarify asks for the clarification a research task needs, on the stream
// of the tasks/result request whose context is ctx, and says what became
// of it.
func (s *Server) clarify(ctx context.Context, ss *mcp.ServerSession) string {
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{
		Message: Clarification,
		RequestedSchema: map[string]any{"type": "object", "required": []any{"interpretation"},
			"properties": map[string]any{"interpretation": map[string]any{"type": "string", "enum": []any{"birds", "night owls"}}}},
	})
	outcome := "failed: "
	switch {
	case err != nil:
		outcome += err.Error()
	case res.Action == "accept":
		outcome = fmt.Sprintf("accept: %v", res.Content["interpretation"])
	default:
		outcome = res.Action
	}
	s.answers <- outcome
	return outcome
}

// wrap turns task-augmented tools/call requests into MethodCreate and adds
// the task facts the SDK cannot write to initialize and tools/list answers.
func (s *Server) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var msg map[string]json.RawMessage
		var method string
		if json.Unmarshal(body, &msg) == nil {
			json.Unmarshal(msg["method"], &method)
		}
		if method == "tools/call" && !s.cfg.IgnoreTasks {
			var p struct {
				Task json.RawMessage `json:"task"`
			}
			if json.Unmarshal(msg["params"], &p) == nil && p.Task != nil {
				msg["method"], _ = json.Marshal(MethodCreate)
				body, _ = json.Marshal(msg)
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		if method != "initialize" && method != "tools/list" {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		out := rec.Body.Bytes()
		if rec.Code == http.StatusOK {
			out = s.decorate(method, out)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write(out)
	})
}

// decorate adds the tasks capability or the tools' task support to a
// JSON-RPC response, sent as JSON or as the data of SSE events; anything
// it cannot parse passes as is.
func (s *Server) decorate(method string, body []byte) []byte {
	if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		lines := bytes.Split(body, []byte("\n"))
		for i, l := range lines {
			if data, ok := bytes.CutPrefix(l, []byte("data: ")); ok {
				lines[i] = append([]byte("data: "), s.decorateJSON(method, data)...)
			}
		}
		return bytes.Join(lines, []byte("\n"))
	}
	return s.decorateJSON(method, body)
}

// decorateJSON is decorate of one JSON-RPC response.
func (s *Server) decorateJSON(method string, body []byte) []byte {
	var resp map[string]any
	if json.Unmarshal(body, &resp) != nil {
		return body
	}
	result, _ := resp["result"].(map[string]any)
	if result == nil {
		return body
	}
	switch method {
	case "initialize":
		caps, _ := result["capabilities"].(map[string]any)
		if caps != nil && !s.cfg.NoTaskCapability {
			caps["tasks"] = map[string]any{"list": map[string]any{}, "cancel": map[string]any{},
				"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
		}
	case "tools/list":
		tools, _ := result["tools"].([]any)
		for _, t := range tools {
			tool, _ := t.(map[string]any)
			switch tool["name"] {
			case ToolResearch:
				tool["execution"] = map[string]any{"taskSupport": "required"}
			case ToolQuick:
				tool["execution"] = map[string]any{"taskSupport": "optional"}
			}
		}
	}
	out, err := json.Marshal(resp)
	if err != nil {
		return body
	}
	return out
}
