package models

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/llm"
)

// testKey is a key no error or log line may hold.
const testKey = "sk-test-secret-0123456789"

func TestParseFlag(t *testing.T) {
	t.Setenv("TEST_MODEL_KEY", " "+testKey+"\n")
	s, err := ParseFlag("name=gpt,provider=openai,url=https://api.openai.com/v1,model=gpt-4o,key-env=TEST_MODEL_KEY,images=true,max-tokens=2048")
	if err != nil {
		t.Fatal(err)
	}
	want := Spec{Name: "gpt", Provider: llm.OpenAI, URL: "https://api.openai.com/v1", Model: "gpt-4o", Key: testKey, Images: true, MaxTokens: 2048}
	if s != want {
		t.Errorf("spec %+v, want %+v", s, want)
	}
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(testKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = ParseFlag("name=claude,provider=anthropic,url=https://api.anthropic.com,model=claude-sonnet-4-5,key-file=" + keyFile)
	if err != nil || s.Key != testKey || s.Provider != llm.Anthropic {
		t.Errorf("with a key file: %+v, %v", s, err)
	}
	s, err = ParseFlag("name=meta/llama3.2:latest,url=http://127.0.0.1:11434/v1,model=llama3.2")
	if err != nil || s.Provider != llm.OpenAI || s.Key != "" {
		t.Errorf("Ollama, the provider left to its default: %+v, %v", s, err)
	}
}

func TestParseFlagRefusals(t *testing.T) {
	t.Setenv("TEST_MODEL_KEY", testKey)
	for value, want := range map[string]string{
		"name=gpt,url=https://x.example/v1,model=m,key=" + testKey:                "never given in place",
		"name=gpt,url=https://x.example/v1,model=m,token=abc":                     "unknown setting",
		"name=gpt,url=https://x.example/v1,model=m,images=maybe":                  "true or false",
		"name=gpt,url=https://x.example/v1,model=m,max-tokens=many":               "whole number",
		"name=gpt,url=https://x.example/v1,model=m,max-tokens=-1":                 "max tokens",
		"name=gpt,url=https://x.example/v1,model":                                 "not key=value",
		"url=https://x.example/v1,model=m":                                        "needs a name",
		"name=two words,url=https://x.example/v1,model=m":                         "letters, digits",
		"name=gpt,provider=gemini,url=https://x.example/v1,model=m":               "unknown provider",
		"name=gpt,provider=demo":                                                  "--demo",
		"name=gpt,url=ftp://x.example,model=m":                                    "http or https",
		"name=gpt,url=https://user:pw@x.example/v1,model=m":                       "user or password",
		"name=gpt,url=https://x.example/v1":                                       "no model",
		"name=gpt,url=http://models.example/v1,model=m,key-env=TEST_MODEL_KEY":    "unencrypted",
		"name=gpt,url=https://x.example/v1,model=m,key-env=TEST_NO_SUCH_VARIABLE": "not set",
		"name=gpt,url=https://x.example/v1,model=m,key-env=A,key-file=b":          "not both",
	} {
		_, err := ParseFlag(value)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseFlag(%q): %v, want an error saying %q", value, err, want)
			continue
		}
		if strings.Contains(err.Error(), testKey) {
			t.Errorf("ParseFlag(%q): the error holds the key: %v", value, err)
		}
		if name := "--model gpt:"; strings.Contains(value, "name=gpt,") && !strings.HasPrefix(err.Error(), name) {
			t.Errorf("ParseFlag(%q): %v, want it to begin with %q", value, err, name)
		}
	}
}

// writeFile writes a file in dir and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "claude.key", testKey+"\n")
	t.Setenv("TEST_MODEL_KEY", "sk-other")
	path := writeFile(t, dir, "models.json", `[
		{"name": "claude", "provider": "anthropic", "url": "https://api.anthropic.com", "model": "claude-sonnet-4-5", "keyFile": "claude.key", "images": true, "maxTokens": 4096},
		{"name": "gpt", "url": "https://api.openai.com/v1", "model": "gpt-4o", "keyEnv": "TEST_MODEL_KEY"},
		{"name": "local", "url": "http://127.0.0.1:11434/v1", "model": "llama3.2"}
	]`)
	specs, err := ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Spec{
		{Name: "claude", Provider: llm.Anthropic, URL: "https://api.anthropic.com", Model: "claude-sonnet-4-5", Key: testKey, Images: true, MaxTokens: 4096},
		{Name: "gpt", Provider: llm.OpenAI, URL: "https://api.openai.com/v1", Model: "gpt-4o", Key: "sk-other"},
		{Name: "local", Provider: llm.OpenAI, URL: "http://127.0.0.1:11434/v1", Model: "llama3.2"},
	}
	if len(specs) != len(want) {
		t.Fatalf("%d specs, want %d", len(specs), len(want))
	}
	for i := range want {
		if specs[i] != want[i] {
			t.Errorf("spec %d: %+v, want %+v", i, specs[i], want[i])
		}
	}
}

func TestParseFileRefusals(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "empty.key", "\n")
	for text, want := range map[string]string{
		`[{"name": "gpt", "url": "https://x.example/v1", "model": "m", "key": "` + testKey + `"}]`: `model 1 (gpt): a key is never given in place`,
		`[{"name": "gpt", "url": "https://x.example/v1", "model": "m", "apiKey": "x"}]`:            `unknown field "apiKey"`,
		`{"name": "gpt"}`: "not a JSON list",
		`[{"name": "a", "url": "https://x.example/v1", "model": "m"}, {"name": "a", "url": "https://y.example/v1", "model": "m"}]`: `two models are named "a"`,
		`[{"name": "a", "url": "https://x.example/v1", "model": "m"}, {"url": "https://y.example/v1", "model": "m"}]`:              "model 2: a model needs a name",
		`[{"name": "gpt", "url": "https://x.example/v1", "model": "m", "keyFile": "empty.key"}]`:                                   "empty",
		`[{"name": "gpt", "url": "https://x.example/v1", "model": "m", "keyFile": "missing.key"}]`:                                 "missing.key",
		`[{"name": "gpt", "url": "https://x.example/v1", "model": "m", "maxTokens": 2000000}]`:                                     "max tokens",
	} {
		path := writeFile(t, dir, "models.json", text)
		_, err := ParseFile(path)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("ParseFile(%s): %v, want an error naming the file and saying %q", text, err, want)
		} else if strings.Contains(err.Error(), testKey) {
			t.Errorf("the error holds the key: %v", err)
		}
	}
	if _, err := ParseFile(filepath.Join(dir, "none.json")); err == nil {
		t.Error("a missing file was read")
	}
}

func TestSpecNeverShowsItsKey(t *testing.T) {
	s := Spec{Name: "gpt", Provider: llm.OpenAI, URL: "https://x.example/v1", Model: "m", Key: testKey}
	var b strings.Builder
	slog.New(slog.NewTextHandler(&b, nil)).Info("configured", "model", s)
	for _, shown := range []string{fmt.Sprint(s), fmt.Sprintf("%v %+v %s", s, s, s), b.String()} {
		if strings.Contains(shown, testKey) || !strings.Contains(shown, "gpt") {
			t.Errorf("a spec shows as %q: want its name and never its key", shown)
		}
	}
}
