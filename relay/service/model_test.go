package service

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/models"
)

func newService(t *testing.T, cfg Config) (*Service, error) {
	t.Helper()
	cfg.DataDir = t.TempDir()
	svc, err := New(context.Background(), cfg)
	if err == nil {
		t.Cleanup(func() { svc.Close() })
	}
	return svc, err
}

// A model the operator put on loopback is reached even by a relay that
// refuses loopback MCP servers.
func TestALoopbackModelIsReachedWithLoopbackServersOff(t *testing.T) {
	fx := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{modelfixture.Text("Hello.")}})
	svc, err := newService(t, Config{AllowLoopback: false,
		Models: []models.Spec{{Name: "local", Provider: llm.OpenAI, URL: fx.OpenAIURL(), Model: "llama3.2"}}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := svc.Models().Model(t.Context(), DefaultLocalUser, "local")
	if err != nil {
		t.Fatal(err)
	}
	res, err := llm.Collect(m.Stream(t.Context(), &llm.Request{Messages: []llm.Message{{Role: llm.User, Parts: []llm.Part{llm.TextPart("Hi")}}}}))
	if err != nil || res.Message.Parts[0].Text != "Hello." {
		t.Errorf("the loopback model answered %+v, %v", res, err)
	}
}

func TestTheDemoModelComesAfterTheConfiguredOnes(t *testing.T) {
	gpt := models.Spec{Name: "gpt", Provider: llm.OpenAI, URL: "https://api.openai.com/v1", Model: "gpt-4o"}
	svc, err := newService(t, Config{Demo: true, AllowLoopback: true, Models: []models.Spec{gpt}})
	if err != nil {
		t.Fatal(err)
	}
	list := svc.Models().List(t.Context(), DefaultLocalUser)
	if len(list.Models) != 2 || list.Models[0].Name != "gpt" || list.Models[1].Name != models.DemoName || list.Models[1].Provider != "demo" {
		t.Errorf("models %+v: want gpt, then the demo", list.Models)
	}
}

func TestTheSamplingModelMustBeOneThatDrafts(t *testing.T) {
	for name, want := range map[string]string{"other": "not configured", models.DemoName: "scripted"} {
		_, err := newService(t, Config{Demo: true, AllowLoopback: true, SamplingModel: name})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--sampling-model %s: %v, want an error saying %q", name, err, want)
		}
	}
}
