package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The everything harness runs the MCP reference server
// @modelcontextprotocol/server-everything (pinned in e2e/everything,
// installed by make everything-server) over Streamable HTTP and over SSE,
// drives a real relay through every tool, prompt, resource and template the
// server offers, answering its questions as a person would, and prints a
// table of what succeeded. It fails when anything the server offers fails,
// or when a tool it offers to a client with roots, sampling and elicitation
// is missing; tools it offers only to clients that run its requests as tasks
// are listed as not offered.

const (
	everythingDir   = "everything"
	everythingEntry = "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
	// everythingCall bounds one call, long enough for the research task.
	everythingCall = 60 * time.Second
	// everythingTool is the task tool the relay must run.
	everythingTool = "simulate-research-query"
)

// everythingArgs are the arguments given to tools whose defaults would
// reach beyond this machine or take long.
var everythingArgs = map[string]map[string]any{
	"gzip-file-as-resource":          {"name": "hello.txt.gz", "data": "data:text/plain;base64,aGVsbG8gd29ybGQ=", "outputType": "resource"},
	"trigger-long-running-operation": {"duration": 2, "steps": 2},
	everythingTool:                   {"topic": "owls"},
}

// everythingConditional are the tools the server offers only to a client
// that advertises a capability, with that capability. The relay advertises
// all of these, so each must be offered.
var everythingConditional = map[string]string{
	"get-roots-list":              "roots",
	"trigger-elicitation-request": "elicitation",
	"trigger-url-elicitation":     "elicitation.url",
	"trigger-sampling-request":    "sampling",
	everythingTool:                "elicitation (it runs as a task)",
}

// everythingNotOffered are the tools the server offers only to a client
// that runs the server's own requests as tasks, which the relay does not
// advertise: their rows say so, and are not failures.
var everythingNotOffered = map[string]string{
	"trigger-sampling-request-async":    "sampling and tasks.requests.sampling.createMessage",
	"trigger-elicitation-request-async": "elicitation and tasks.requests.elicitation.create",
}

// everythingRow is one line of the table.
type everythingRow struct {
	transport, kind, name string
	ok                    bool
	notOffered            bool // a tool the relay is not meant to be offered
	detail                string
}

func TestEverythingServer(t *testing.T) {
	entry := filepath.Join(everythingDir, everythingEntry)
	if _, err := os.Stat(entry); err != nil {
		t.Skipf("the everything server is not installed (make everything-server): %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("Node.js is needed for the everything server: %v", err)
	}
	var rows []everythingRow
	for _, tr := range []struct {
		name, arg, path string
		transport       wire.Transport
	}{
		{"streamable-http", "streamableHttp", "/mcp", wire.TransportStreamable},
		{"sse", "sse", "/sse", wire.TransportSSE},
	} {
		base := startEverything(t, tr.arg)
		rows = append(rows, driveEverything(t, tr.name, base+tr.path, tr.transport)...)
	}
	t.Log("\n" + everythingTable(rows))
	for _, r := range rows {
		if !r.ok && !r.notOffered {
			t.Errorf("%s %s over %s failed: %s", r.kind, r.name, r.transport, r.detail)
		}
	}
}

// startEverything runs the server with the given transport on a free
// loopback port and returns its base URL. It is killed when the test ends.
func startEverything(t *testing.T, transport string) string {
	t.Helper()
	// Only what node needs: the get-env tool shows the server's environment.
	return startNodeServer(t, everythingDir, everythingEntry, []string{"GZIP_ALLOWED_DOMAINS=127.0.0.1"}, transport)
}

// loopbackShim, preloaded into every npm server of the tests, binds their
// listeners to 127.0.0.1 and prints the port each got.
const loopbackShim = "everything/loopback.cjs"

// startNodeServer runs the Node.js program entry (relative to dir) with
// args, PORT=0 and env, on a free loopback port (the preloaded loopbackShim
// binds 127.0.0.1 and prints the port), and returns its base URL,
// http://127.0.0.1:PORT. It is killed when the test ends.
func startNodeServer(t testing.TB, dir, entry string, env []string, args ...string) string {
	t.Helper()
	shim, err := filepath.Abs(loopbackShim)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "node", append([]string{"--require", shim, entry}, args...)...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "PORT=0"}, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", entry, err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	ports := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if port, ok := strings.CutPrefix(sc.Text(), "switchboard-listening "); ok {
				select {
				case ports <- port:
				default:
				}
			}
		}
	}()
	select {
	case port := <-ports:
		return "http://127.0.0.1:" + port
	case <-time.After(20 * time.Second):
		t.Fatalf("%s %v did not say its port", entry, args)
		return ""
	}
}

// driveEverything adds the server to a fresh relay and uses all it offers.
func driveEverything(t *testing.T, transportName, url string, transport wire.Transport) []everythingRow {
	r := startRelay(t)
	s, _ := r.openSocket(t, r.sessionCookie(t))
	f := s.op(wire.OpAddServer, wire.AddServerArgs{Name: "everything-" + transportName, URL: url, Transport: transport})
	if f.Type != wire.TypeResult {
		t.Fatalf("add the everything server over %s: %+v", transportName, f.Error)
	}
	var added wire.AddServerResult
	json.Unmarshal(f.Data, &added)
	s.waitServerState(added.ID, wire.StateReady)
	// The server adds its conditional tools once initialized, then says so;
	// the relay lists them again. Wait for the task tool, then read it all.
	srv := waitEverythingLists(t, r, s, added.ID)
	d := &everythingDriver{t: t, s: s}
	var rows []everythingRow
	row := func(kind, item string, res wire.Frame) {
		ok, detail := everythingOutcome(res)
		rows = append(rows, everythingRow{transport: transportName, kind: kind, name: item, ok: ok, detail: detail})
	}
	for _, tool := range srv.Tools {
		args := everythingArgs[tool.Name]
		if args == nil {
			args = sampleObject(tool.InputSchema)
		}
		raw, _ := json.Marshal(args)
		row("tool", tool.Name, d.run(wire.OpCallTool, wire.CallToolArgs{Server: added.ID, Name: tool.Name, Arguments: raw}))
		if tool.Name == everythingTool { // again, ambiguous: the task asks for input on its way
			raw, _ := json.Marshal(map[string]any{"topic": "python", "ambiguous": true})
			row("tool", tool.Name+" (ambiguous)", d.run(wire.OpCallTool, wire.CallToolArgs{Server: added.ID, Name: tool.Name, Arguments: raw}))
		}
	}
	offered := func(name string) bool {
		return slices.ContainsFunc(srv.Tools, func(tl wire.Tool) bool { return tl.Name == name })
	}
	for _, name := range slices.Sorted(maps.Keys(everythingConditional)) {
		if !offered(name) {
			rows = append(rows, everythingRow{transport: transportName, kind: "tool", name: name,
				detail: "not offered, though the relay advertises " + everythingConditional[name]})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(everythingNotOffered)) {
		if !offered(name) {
			rows = append(rows, everythingRow{transport: transportName, kind: "tool", name: name, notOffered: true,
				detail: "the server offers it only to a client advertising " + everythingNotOffered[name]})
		}
	}
	for _, p := range srv.Prompts {
		args := map[string]string{}
		for _, a := range p.Arguments {
			args[a.Name] = promptValue(a.Name)
		}
		row("prompt", p.Name, d.run(wire.OpGetPrompt, wire.GetPromptArgs{Server: added.ID, Name: p.Name, Arguments: args}))
	}
	for _, res := range srv.Resources {
		row("resource", res.URI, d.run(wire.OpReadResource, wire.ReadResourceArgs{Server: added.ID, URI: res.URI}))
	}
	for _, tpl := range srv.Templates {
		uri := fillTemplate(tpl.URITemplate)
		row("template", tpl.URITemplate, d.run(wire.OpReadResource, wire.ReadResourceArgs{Server: added.ID, URI: uri}))
	}
	return rows
}

// waitEverythingLists returns the server's state once its task tool is
// listed: at once when a fresh snapshot has it, otherwise after s (which
// has read up to the server being ready) sees the tool arrive.
func waitEverythingLists(t *testing.T, r *relay, s *socket, id string) wire.Server {
	t.Helper()
	fresh := func() wire.Server {
		other, snap := r.openSocket(t, r.sessionCookie(t))
		defer other.c.CloseNow()
		srv := snap.ServerByID(id)
		if srv == nil {
			t.Fatalf("server %s is gone", id)
		}
		return *srv
	}
	hasTask := func(srv wire.Server) bool {
		return slices.ContainsFunc(srv.Tools, func(tl wire.Tool) bool { return tl.Name == everythingTool })
	}
	if srv := fresh(); hasTask(srv) {
		return srv
	}
	s.waitChange("the task tool listed", func(c wire.Change) bool {
		return c.Kind == wire.KindTool && c.Server == id && c.Key == everythingTool && !c.Remove
	})
	return fresh()
}

// everythingDriver runs ops on a socket and answers the asks they raise.
type everythingDriver struct {
	t   *testing.T
	s   *socket
	ids atomic.Int64
}

// run sends an op and returns its answer, answering every ask on the way:
// a form with a value for each field, a sampling request with a short
// message, a URL by declining to open it.
func (d *everythingDriver) run(op wire.OpName, args any) wire.Frame {
	d.t.Helper()
	id := "everything-" + strconv.FormatInt(d.ids.Add(1), 10)
	f, err := wire.Op(id, op, args)
	if err != nil {
		d.t.Fatal(err)
	}
	d.s.send(f)
	deadline := time.Now().Add(everythingCall)
	for time.Now().Before(deadline) {
		fr, err := d.s.read()
		if err != nil {
			if strings.Contains(err.Error(), "deadline") {
				continue // a quiet stretch of a long call
			}
			d.t.Fatalf("socket: %v", err)
		}
		switch {
		case fr.ID == id && (fr.Type == wire.TypeResult || fr.Type == wire.TypeError):
			return fr
		case fr.Type == wire.TypeDelta:
			d.answerAsks(fr)
		}
	}
	return wire.ErrorFrame(id, wire.NewError(wire.CodeInternal, "no answer within "+everythingCall.String()))
}

// answerAsks answers the new pending asks of a delta.
func (d *everythingDriver) answerAsks(fr wire.Frame) {
	var delta wire.Delta
	if json.Unmarshal(fr.Data, &delta) != nil {
		return
	}
	for _, c := range delta.Changes {
		if c.Kind != wire.KindAsk || c.Remove {
			continue
		}
		var a wire.Ask
		if json.Unmarshal(c.Value, &a) != nil || a.State != wire.AskPending {
			continue
		}
		ans := wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionDecline}
		switch a.Kind {
		case wire.AskForm:
			ans = wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionAccept, Content: sampleObject(a.Schema)}
		case wire.AskSampling:
			ans = wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionAccept, Sampling: &wire.SamplingResult{
				Model: "person", StopReason: wire.StopEndTurn,
				Content: []wire.SamplingContent{{Type: wire.ContentText, Text: "A reply written in the dashboard."}},
			}}
		}
		f, _ := wire.Op("everything-ask-"+a.ID, wire.OpAnswerAsk, ans)
		d.s.send(f)
	}
}

// everythingOutcome says whether an answer is a success, and shows it short.
func everythingOutcome(f wire.Frame) (bool, string) {
	if f.Type == wire.TypeError {
		msg := "error"
		if f.Error != nil {
			msg = f.Error.Error()
		}
		return false, short(msg)
	}
	var tool wire.CallToolResult
	if json.Unmarshal(f.Data, &tool) == nil && tool.IsError {
		text := ""
		for _, c := range tool.Content {
			text += c.Text
		}
		return false, short("tool error: " + text)
	}
	return true, short(string(f.Data))
}

var spaces = regexp.MustCompile(`\s+`)

func short(s string) string {
	s = spaces.ReplaceAllString(s, " ")
	if r := []rune(s); len(r) > 90 {
		return string(r[:90]) + "…"
	}
	return s
}

// everythingTable formats the rows and a count.
func everythingTable(rows []everythingRow) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TRANSPORT\tKIND\tNAME\tRESULT\tDETAIL")
	passed, failed, notOffered := 0, 0, 0
	for _, r := range rows {
		res := "FAIL"
		switch {
		case r.ok:
			res, passed = "ok", passed+1
		case r.notOffered:
			res, notOffered = "not offered", notOffered+1
		default:
			failed++
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.transport, r.kind, r.name, res, r.detail)
	}
	w.Flush()
	fmt.Fprintf(&b, "everything: %d passed, %d failed, %d not offered\n", passed, failed, notOffered)
	return b.String()
}

// sampleObject is an object with a plausible value for each property of a
// JSON schema, as a person filling the form would give.
func sampleObject(schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(schema, &s)
	out := map[string]any{}
	for name, p := range s.Properties {
		if v, ok := sampleValue(p); ok {
			out[name] = v
		}
	}
	return out
}

// sampleValue is a value for one property schema.
func sampleValue(raw json.RawMessage) (any, bool) {
	var p struct {
		Type    any                   `json:"type"`
		Enum    []any                 `json:"enum"`
		OneOf   []struct{ Const any } `json:"oneOf"`
		Format  string                `json:"format"`
		Default any                   `json:"default"`
		Minimum *float64              `json:"minimum"`
		Items   json.RawMessage       `json:"items"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return nil, false
	}
	switch {
	case p.Default != nil:
		return p.Default, true
	case len(p.Enum) > 0:
		return p.Enum[0], true
	case len(p.OneOf) > 0 && p.OneOf[0].Const != nil:
		return p.OneOf[0].Const, true
	}
	typ, _ := p.Type.(string)
	switch typ {
	case "string":
		switch p.Format {
		case "email":
			return "person@example.com", true
		case "uri", "url":
			return "https://example.com/", true
		case "date":
			return "2024-01-02", true
		case "date-time":
			return "2024-01-02T03:04:05Z", true
		}
		return "test", true
	case "number", "integer":
		if p.Minimum != nil {
			return *p.Minimum + 1, true
		}
		return 1, true
	case "boolean":
		return true, true
	case "array":
		if v, ok := sampleValue(p.Items); ok {
			return []any{v}, true
		}
		return []any{}, true
	case "object":
		return sampleObject(raw), true
	}
	return nil, false
}

// promptValue is a value for a prompt argument.
func promptValue(name string) string {
	switch strings.ToLower(name) {
	case "resourceid":
		return "1"
	case "resourcetype":
		return "Text"
	}
	return "test"
}

var templateVar = regexp.MustCompile(`\{[^}]*\}`)

// fillTemplate fills every variable of a URI template with "1".
func fillTemplate(tpl string) string { return templateVar.ReplaceAllString(tpl, "1") }
