package models

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Keys of the tests: the operator's and people's.
const (
	operatorKey = "sk-operator-key-0123456789"
	annKey      = "sk-ann-own-key-0123456789"
)

// memKeys keeps keys in memory, as the store keeps them sealed; failSet,
// when set, fails Set with an error that names the key.
type memKeys struct {
	mu      sync.Mutex
	keys    map[userModel]string
	failSet bool
}

func newMemKeys() *memKeys { return &memKeys{keys: map[userModel]string{}} }

func (m *memKeys) Get(_ context.Context, user, model string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.keys[userModel{user, model}], nil
}

func (m *memKeys) Set(_ context.Context, user, model, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failSet {
		return errors.New("disk full while sealing " + key)
	}
	if key == "" {
		delete(m.keys, userModel{user, model})
	} else {
		m.keys[userModel{user, model}] = key
	}
	return nil
}

func (m *memKeys) Names(_ context.Context, user string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for um := range m.keys {
		if um.user == user {
			names = append(names, um.model)
		}
	}
	return names, nil
}

// guarded is the relay's outbound client as a relay on one's own machine has it.
func guarded() *http.Client { return netguard.Policy{AllowLoopback: true}.Client(0) }

// logBuffer collects log lines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func newRegistry(t *testing.T, specs []Spec, opts Options) *Registry {
	t.Helper()
	if opts.HTTPClient == nil {
		opts.HTTPClient = guarded()
	}
	r, err := New(specs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// ask streams one short question to m and returns its answer.
func ask(t *testing.T, m llm.Model) (llm.Response, error) {
	t.Helper()
	return llm.Collect(m.Stream(t.Context(), &llm.Request{Messages: []llm.Message{{Role: llm.User, Parts: []llm.Part{llm.TextPart("Hi")}}}}))
}

func TestListSaysHowToConfigureAModelWhenThereIsNone(t *testing.T) {
	r := newRegistry(t, nil, Options{})
	res := r.List(t.Context(), "ann")
	if res.Models == nil || len(res.Models) != 0 || !strings.Contains(res.Help, "--model name=local,provider=openai,url=http://127.0.0.1:11434/v1") {
		t.Errorf("list %+v: want no models and help naming a flag for Ollama", res)
	}
	if r.Default() != "" {
		t.Errorf("default %q without models", r.Default())
	}
	demoOnly := newRegistry(t, []Spec{DemoSpec()}, Options{}).List(t.Context(), "ann")
	if len(demoOnly.Models) != 1 || demoOnly.Help != Help {
		t.Errorf("list %+v: want the demo model, and the help, for it is no model", demoOnly)
	}
}

func TestListShowsTheModelsTheDefaultFirst(t *testing.T) {
	keys := newMemKeys()
	r := newRegistry(t, []Spec{
		{Name: "claude", Provider: llm.Anthropic, URL: "https://api.anthropic.com", Model: "claude-sonnet-4-5", Key: operatorKey, Images: true},
		{Name: "local", Provider: llm.OpenAI, URL: "http://127.0.0.1:11434/v1", Model: "llama3.2"},
		DemoSpec(),
	}, Options{Keys: keys})
	if err := r.SetKey(t.Context(), "ann", "local", annKey); err != nil {
		t.Fatal(err)
	}
	keys.Set(t.Context(), "ann", "gone", "sk-for-a-model-no-longer-configured")
	res := r.List(t.Context(), "ann")
	want := []wire.ChatModel{
		{Name: "claude", Provider: "anthropic", Model: "claude-sonnet-4-5", Key: true, Images: true},
		{Name: "local", Provider: "openai", Model: "llama3.2", UserKey: true},
		{Name: "demo", Provider: "demo", Model: "scripted"},
	}
	if res.Help != "" || len(res.Models) != len(want) {
		t.Fatalf("list %+v", res)
	}
	for i := range want {
		if res.Models[i] != want[i] {
			t.Errorf("model %d: %+v, want %+v", i, res.Models[i], want[i])
		}
	}
	if bob := r.List(t.Context(), "bob"); bob.Models[1].UserKey {
		t.Error("Ann's key shows as Bob's")
	}
	if r.Default() != "claude" || !r.Images("claude") || r.Images("local") || r.Images("none") {
		t.Errorf("default %q, images of claude %v", r.Default(), r.Images("claude"))
	}
}

func TestModelUsesThePersonsOwnKeyElseTheOperators(t *testing.T) {
	fx := modelfixture.Start(t, modelfixture.Options{Decide: func(*modelfixture.Request) modelfixture.Reply { return modelfixture.Text("Hello.") }})
	keys := newMemKeys()
	r := newRegistry(t, []Spec{{Name: "gpt", Provider: llm.OpenAI, URL: fx.OpenAIURL(), Model: "gpt-test", Key: operatorKey}}, Options{Keys: keys})
	bearer := func(user string) string {
		t.Helper()
		m, err := r.Model(t.Context(), user, "gpt")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ask(t, m); err != nil {
			t.Fatal(err)
		}
		return fx.Next(t).Header.Get("Authorization")
	}
	if got := bearer("ann"); got != "Bearer "+operatorKey {
		t.Errorf("before Ann set a key: %q", got)
	}
	if err := r.SetKey(t.Context(), "ann", "gpt", " "+annKey+"\n"); err != nil {
		t.Fatal(err)
	}
	if got := bearer("ann"); got != "Bearer "+annKey {
		t.Errorf("with Ann's key: %q", got)
	}
	if got := bearer("bob"); got != "Bearer "+operatorKey {
		t.Errorf("Bob got %q", got)
	}
	first, _ := r.Model(t.Context(), "ann", "gpt")
	if again, _ := r.Model(t.Context(), "ann", "gpt"); again != first {
		t.Error("a second request with the same key built another client")
	}
	if err := r.SetKey(t.Context(), "ann", "gpt", ""); err != nil {
		t.Fatal(err)
	}
	if got := bearer("ann"); got != "Bearer "+operatorKey {
		t.Errorf("after Ann removed her key: %q", got)
	}
	if _, err := r.Model(t.Context(), "ann", "other"); codeOf(err) != wire.CodeNotFound {
		t.Errorf("an unknown model: %v", err)
	}
}

func codeOf(err error) wire.Code {
	if we, ok := errors.AsType[*wire.Error](err); ok {
		return we.Code
	}
	return ""
}

func TestSetKeyRefusals(t *testing.T) {
	r := newRegistry(t, []Spec{
		{Name: "gpt", Provider: llm.OpenAI, URL: "https://api.openai.com/v1", Model: "gpt-4o"},
		{Name: "lan", Provider: llm.OpenAI, URL: "http://models.example/v1", Model: "m"},
		DemoSpec(),
	}, Options{Keys: newMemKeys()})
	for _, c := range []struct {
		model, key string
		want       wire.Code
	}{
		{"other", annKey, wire.CodeNotFound},
		{"demo", annKey, wire.CodeBadRequest},
		{"gpt", strings.Repeat("k", maxKeyBytes+1), wire.CodeBadRequest},
		{"gpt", "sk-two words", wire.CodeBadRequest},
		{"gpt", "sk-line\nbreak", wire.CodeBadRequest},
		{"lan", annKey, wire.CodeBadRequest},
	} {
		err := r.SetKey(t.Context(), "ann", c.model, c.key)
		if codeOf(err) != c.want {
			t.Errorf("SetKey(%s, %.20q): %v, want code %s", c.model, c.key, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), annKey) {
			t.Errorf("the error holds the key: %v", err)
		}
	}
	if err := r.SetKey(t.Context(), "ann", "lan", ""); err != nil {
		t.Errorf("removing a key of a plain-http model: %v", err)
	}
	none := newRegistry(t, []Spec{{Name: "gpt", Provider: llm.OpenAI, URL: "https://api.openai.com/v1", Model: "gpt-4o"}}, Options{})
	if err := none.SetKey(t.Context(), "ann", "gpt", annKey); codeOf(err) != wire.CodeNotConfigured {
		t.Errorf("without a key store: %v", err)
	}
}

// A person's key and the operator's stay out of errors and log lines, even
// when the endpoint or the store echoes them.
func TestKeysNeverInErrorsOrLogs(t *testing.T) {
	fx := modelfixture.Start(t, modelfixture.Options{Decide: func(req *modelfixture.Request) modelfixture.Reply {
		key := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
		return modelfixture.Status(http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided: `+key+`"}}`, "")
	}})
	var logs logBuffer
	keys := newMemKeys()
	r := newRegistry(t, []Spec{{Name: "gpt", Provider: llm.OpenAI, URL: fx.OpenAIURL(), Model: "gpt-test", Key: operatorKey}},
		Options{Keys: keys, Logger: logs.logger()})
	var errs []error
	for _, user := range []string{"bob", "ann"} {
		if user == "ann" {
			if err := r.SetKey(t.Context(), "ann", "gpt", annKey); err != nil {
				t.Fatal(err)
			}
		}
		m, err := r.Model(t.Context(), user, "gpt")
		if err != nil {
			t.Fatal(err)
		}
		_, err = ask(t, m)
		errs = append(errs, err)
		d, err := r.Drafter("gpt")
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Draft(t.Context(), &wire.SamplingRequest{MaxTokens: 5, Messages: []wire.SamplingMessage{{Role: wire.RoleUser, Content: []wire.SamplingContent{{Type: wire.ContentText, Text: "Hi"}}}}})
		errs = append(errs, err)
	}
	keys.failSet = true
	errs = append(errs, r.SetKey(t.Context(), "ann", "gpt", annKey))

	for i, err := range errs {
		if err == nil {
			t.Errorf("error %d: none", i)
		} else if strings.Contains(err.Error(), annKey) || strings.Contains(err.Error(), operatorKey) {
			t.Errorf("error %d holds a key: %v", i, err)
		}
	}
	if !strings.Contains(errs[0].Error(), "401") || codeOf(errs[1]) != wire.CodeUpstream || codeOf(errs[4]) != wire.CodeInternal {
		t.Errorf("errors %v: want a 401, an upstream error and an internal one", errs)
	}
	if l := logs.String(); strings.Contains(l, annKey) || strings.Contains(l, operatorKey) || !strings.Contains(l, "[key]") {
		t.Errorf("the log holds a key, or does not show where one was removed:\n%s", l)
	}
}

// A model on a loopback address is one the operator chose: it is reached
// through Options.Local even when the relay's client refuses loopback.
func TestLoopbackModelsGoThroughTheLocalClient(t *testing.T) {
	fx := modelfixture.Start(t, modelfixture.Options{Decide: func(*modelfixture.Request) modelfixture.Reply { return modelfixture.Text("Hello.") }})
	specs := []Spec{{Name: "local", Provider: llm.OpenAI, URL: fx.OpenAIURL(), Model: "llama3.2"}}
	refusing := netguard.Policy{}.Client(0)

	alone := newRegistry(t, specs, Options{HTTPClient: refusing})
	m, _ := alone.Model(t.Context(), "ann", "local")
	if _, err := ask(t, m); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("through a client that refuses loopback: %v, want the guard's refusal", err)
	}
	withLocal := newRegistry(t, specs, Options{HTTPClient: refusing, Local: guarded()})
	m, _ = withLocal.Model(t.Context(), "ann", "local")
	if res, err := ask(t, m); err != nil || res.Message.Parts[0].Text != "Hello." {
		t.Errorf("through the local client: %+v, %v", res, err)
	}
	if n := len(fx.Requests()); n != 1 {
		t.Errorf("the model got %d requests, want the local client's only", n)
	}
}

func TestMaxTokensCapsEachAnswer(t *testing.T) {
	fx := modelfixture.Start(t, modelfixture.Options{Decide: func(*modelfixture.Request) modelfixture.Reply { return modelfixture.Text("Hi.") }})
	r := newRegistry(t, []Spec{{Name: "gpt", Provider: llm.OpenAI, URL: fx.OpenAIURL(), Model: "gpt-test", MaxTokens: 50}}, Options{})
	m, err := r.Model(t.Context(), "ann", "gpt")
	if err != nil {
		t.Fatal(err)
	}
	for asked, want := range map[int]int{0: 50, 100: 50, 10: 10} {
		req := &llm.Request{MaxTokens: asked, Messages: []llm.Message{{Role: llm.User, Parts: []llm.Part{llm.TextPart("Hi")}}}}
		if _, err := llm.Collect(m.Stream(t.Context(), req)); err != nil {
			t.Fatal(err)
		}
		if got := fx.Next(t).MaxTokens; got != want || req.MaxTokens != asked {
			t.Errorf("asked %d: sent %d, want %d (and the request left as it was: %d)", asked, got, want, req.MaxTokens)
		}
	}
}

func TestOps(t *testing.T) {
	r := newRegistry(t, []Spec{{Name: "gpt", Provider: llm.OpenAI, URL: "https://api.openai.com/v1", Model: "gpt-4o"}}, Options{Keys: newMemKeys()})
	mux := ops.NewMux()
	r.HandleOps(mux)
	serve := func(op wire.OpName, args string) (string, error) {
		t.Helper()
		res, err := mux.Serve(t.Context(), ops.Request{User: "ann", Op: op, Args: json.RawMessage(args)})
		b, _ := json.Marshal(res)
		return string(b), err
	}
	got, err := serve(wire.OpSetModelKey, `{"model":"gpt","key":"`+annKey+`"}`)
	if err != nil || strings.Contains(got, annKey) {
		t.Fatalf("set: %s, %v", got, err)
	}
	got, err = serve(wire.OpChatModels, "")
	if err != nil || got != `{"models":[{"name":"gpt","provider":"openai","model":"gpt-4o","userKey":true}]}` {
		t.Errorf("list: %s, %v", got, err)
	}
	if _, err := serve(wire.OpSetModelKey, `{"model":"other","key":"k"}`); codeOf(err) != wire.CodeNotFound {
		t.Errorf("a key for an unknown model: %v", err)
	}
}

func TestNewRefusesBadSpecs(t *testing.T) {
	for _, specs := range [][]Spec{
		{{Name: "a", Provider: llm.OpenAI, URL: "https://x.example/v1", Model: "m"}, {Name: "a", Provider: llm.OpenAI, URL: "https://y.example/v1", Model: "m"}},
		{{Name: "a", Provider: llm.OpenAI, URL: "http://x.example/v1", Model: "m", Key: operatorKey}},
		{{Name: "demo", Provider: Demo, URL: "https://x.example"}},
	} {
		_, err := New(specs, Options{HTTPClient: guarded()})
		if err == nil {
			t.Errorf("New(%v) accepted", specs)
		} else if strings.Contains(err.Error(), operatorKey) {
			t.Errorf("the error holds the key: %v", err)
		}
	}
}
