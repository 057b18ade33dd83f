package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/models"
)

const flagTestKey = "sk-flag-test-0123456789"

// parseModels parses args as serve's model flags and reads the models.
func parseModels(t *testing.T, args ...string) ([]models.Spec, string, error) {
	t.Helper()
	fs := newFlagSet("serve")
	f := addModelFlags(fs)
	if err := fs.parse(args); err != nil {
		t.Fatal(err)
	}
	specs, err := f.models(slog.New(slog.DiscardHandler))
	return specs, *f.sampling, err
}

func names(specs []models.Spec) string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return strings.Join(out, ",")
}

func TestModelFlagsInOrder(t *testing.T) {
	t.Setenv(modelKeyEnv, flagTestKey)
	t.Setenv("TEST_CLAUDE_KEY", "sk-claude")
	dir := t.TempDir()
	file := filepath.Join(dir, "models.json")
	if err := os.WriteFile(file, []byte(`[{"name": "from-file", "url": "http://127.0.0.1:8000/v1", "model": "qwen"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	specs, sampling, err := parseModels(t,
		"--model-url", "https://api.anthropic.com", "--model-name", "claude-haiku-4-5", "--model-provider", "anthropic",
		"--model", "name=local,url=http://127.0.0.1:11434/v1,model=llama3.2",
		"--model", "name=claude,provider=anthropic,url=https://api.anthropic.com,model=claude-sonnet-4-5,key-env=TEST_CLAUDE_KEY",
		"--models", file, "--sampling-model", "local")
	if err != nil {
		t.Fatal(err)
	}
	if got := names(specs); got != "claude-haiku-4-5,local,claude,from-file" || sampling != "local" {
		t.Fatalf("models %s, sampling %q: want --model-url's, each --model, then the file's", got, sampling)
	}
	legacy := models.Spec{Name: "claude-haiku-4-5", Provider: llm.Anthropic, URL: "https://api.anthropic.com", Model: "claude-haiku-4-5", Key: flagTestKey, Images: true}
	if specs[0] != legacy || specs[2].Key != "sk-claude" {
		t.Errorf("--model-url's model %v, --model's key set: %v", specs[0], specs[2].Key != "")
	}
}

func TestModelFlagFromTheEnvironment(t *testing.T) {
	t.Setenv("SWITCHBOARD_MODEL", "name=a,url=http://127.0.0.1:1/v1,model=m; name=b,url=http://127.0.0.1:2/v1,model=m")
	specs, _, err := parseModels(t)
	if err != nil || names(specs) != "a,b" {
		t.Errorf("from $SWITCHBOARD_MODEL: %s, %v", names(specs), err)
	}
	specs, _, err = parseModels(t, "--model", "name=c,url=http://127.0.0.1:3/v1,model=m")
	if err != nil || names(specs) != "c" {
		t.Errorf("the flag beats the environment: %s, %v", names(specs), err)
	}
}

func TestModelFlagsRefusals(t *testing.T) {
	t.Setenv(modelKeyEnv, flagTestKey)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model-url", "https://x.example/v1"}, "both --model-url and --model-name"},
		{[]string{"--model-url", "http://x.example/v1", "--model-name", "m"}, "--model-url: its key would travel unencrypted"},
		{[]string{"--model-url", "https://x.example/v1", "--model-name", "m", "--model-provider", "gemini"}, "unknown provider"},
		{[]string{"--model", "name=a,url=https://x.example/v1,model=m,key=" + flagTestKey}, "never given in place"},
		{[]string{"--models", filepath.Join(t.TempDir(), "none.json")}, "models file"},
	} {
		_, _, err := parseModels(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error saying %q", c.args, err, c.want)
		} else if strings.Contains(err.Error(), flagTestKey) {
			t.Errorf("%v: the error holds the key: %v", c.args, err)
		}
	}
	if specs, _, err := parseModels(t); err != nil || len(specs) != 0 {
		t.Errorf("a key without --model-url: %v, %v; want no model and no error", specs, err)
	}
}
