package e2e

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// agentName is the test agent's.
const agentName = "Claude"

// newAgentKey creates an agent key for all servers as a person does, with
// an op from the dashboard, and returns it.
func newAgentKey(t *testing.T, r *relay) string {
	t.Helper()
	s, _ := r.openSocket(t, r.sessionCookie(t))
	defer s.c.CloseNow()
	return s.createKey(wire.CreateAgentKeyArgs{Name: agentName}).Secret
}

// connectAgent connects a go-sdk client with a new agent key to the relay's
// endpoint path; the recorder holds every byte it receives.
func connectAgent(t *testing.T, r *relay, path string) (*mcp.ClientSession, *recorder) {
	t.Helper()
	rec := &recorder{key: newAgentKey(t, r)}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: r.URL() + path, HTTPClient: &http.Client{Transport: rec},
	}, nil)
	if err != nil {
		t.Fatalf("the agent connects: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, rec
}

// recorder is the agent's RoundTripper: it sends the key and keeps every
// byte the agent receives.
type recorder struct {
	key string
	mu  sync.Mutex
	got bytes.Buffer
}

func (rec *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+rec.key)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &recordedBody{ReadCloser: resp.Body, rec: rec}
	return resp, nil
}

func (rec *recorder) received() string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.got.String()
}

type recordedBody struct {
	io.ReadCloser
	rec *recorder
}

func (b *recordedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.rec.mu.Lock()
	b.rec.got.Write(p[:n])
	b.rec.mu.Unlock()
	return n, err
}

func TestAgentsQuestionsAreAnsweredByThePersonInTheDashboard(t *testing.T) {
	r := startRelay(t)
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	p := openTab(t)
	p.login(r)
	p.addServer(askerName, fx.URL())
	p.waitServer(askerName, wire.StateReady)
	server := p.serverID(askerName)

	cs, rec := connectAgent(t, r, gateway.Path)
	call := func(tool string) <-chan *mcp.CallToolResult {
		out := make(chan *mcp.CallToolResult, 1)
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: server + "__" + tool, Arguments: map[string]any{}})
			if err != nil {
				res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
			}
			out <- res
		}()
		return out
	}
	outcome := func(res *mcp.CallToolResult) elicitfixture.Outcome {
		t.Helper()
		text := res.Content[0].(*mcp.TextContent).Text
		o, err := elicitfixture.ParseOutcome(text)
		if err != nil || res.IsError {
			t.Fatalf("the agent got %q", text)
		}
		return o
	}

	// A form: the person fills it in; the agent gets the tool's result.
	form := elicitfixture.Forms[0]
	done := call("form_" + form.Name)
	id := p.waitNewCard(wire.AskForm, nil)
	caller := p.text(cardSel(id) + " .ask-caller")
	if !strings.Contains(caller, agentName) || !strings.Contains(caller, "form_"+form.Name) {
		t.Errorf("the card says %q: it should name the agent and the tool", caller)
	}
	t.Logf("screenshot: %s", p.screenshotAsks("ask-agent"))
	p.fillForm(id, form.Example)
	p.click(cardSel(id) + " .ask-accept")
	p.waitGone(cardSel(id))
	if o := outcome(<-done); o.Action != wire.ActionAccept {
		t.Fatalf("the server got %+v", o)
	}

	// A URL: the person opens it from the card.
	done = call("url_consent")
	id = p.waitNewCard(wire.AskURL, []string{id})
	caller = p.text(cardSel(id) + " .ask-caller")
	if !strings.Contains(caller, agentName) || !strings.Contains(caller, "url_consent") {
		t.Errorf("the URL card says %q", caller)
	}
	url := p.text(cardSel(id) + " .ask-url")
	p.click(cardSel(id) + " .ask-open")
	p.waitPageAt(url).waitText("body", "is complete")
	if o := outcome(<-done); o.Action != wire.ActionAccept {
		t.Fatalf("the server got %+v", o)
	}

	got := rec.received()
	for _, secret := range []string{form.Message, string(form.Schema), `"requestedSchema"`, "Invite code", url, elicitfixture.CompletePath, "Sign in to Example"} {
		if strings.Contains(got, secret) {
			t.Errorf("the agent received %q", secret)
		}
	}
	if len(got) == 0 {
		t.Error("the recorder saw nothing")
	}
}
