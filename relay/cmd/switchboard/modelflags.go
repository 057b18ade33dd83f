package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/models"
)

// modelKeyEnv holds the key of --model-url; it is not a flag, so that it
// never shows in a process listing.
const modelKeyEnv = "SWITCHBOARD_MODEL_KEY"

// modelFlags configure the models: of the chat, and the one that drafts
// sampling answers.
type modelFlags struct {
	specs                        *[]string
	file                         *string
	url, name, keyFile, provider *string
	sampling                     *string
}

func addModelFlags(fs *flagSet) modelFlags {
	return modelFlags{
		specs: fs.Strings("model", "a model, repeatable: name=NAME,provider=openai|anthropic,url=URL,model=MODEL[,key-env=VAR|key-file=FILE][,images=true][,max-tokens=N]; "+
			"for example name=local,provider=openai,url=http://127.0.0.1:11434/v1,model=llama3.2 (Ollama on this machine); the first model configured is the default"),
		file:     fs.String("models", "", `JSON file of models: [{"name", "provider", "url", "model", "keyFile" or "keyEnv", "images", "maxTokens"}]`),
		url:      fs.String("model-url", "", "a model's endpoint (its base, e.g. https://api.openai.com/v1, or its full URL), named by --model-name; reached through the relay's outbound guard"),
		name:     fs.String("model-name", "", "the model to ask for at --model-url, and its name"),
		keyFile:  fs.String("model-key-file", "", "file holding the key of --model-url (or set $"+modelKeyEnv+")"),
		provider: fs.String("model-provider", string(llm.OpenAI), "what --model-url speaks: openai (chat completions) or anthropic (Messages)"),
		sampling: fs.String("sampling-model", "", "the model that drafts sampling answers (default: the first model that is not the demo)"),
	}
}

// models reads the configured models, in order: --model-url's, each
// --model, then the --models file's. Keys are read from their files and
// variables now.
func (f modelFlags) models(logger *slog.Logger) ([]models.Spec, error) {
	var specs []models.Spec
	legacy, err := f.legacy(logger)
	if err != nil {
		return nil, err
	}
	if legacy != nil {
		specs = append(specs, *legacy)
	}
	for _, v := range *f.specs {
		s, err := models.ParseFlag(v)
		if err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	if *f.file != "" {
		fromFile, err := models.ParseFile(*f.file)
		if err != nil {
			return nil, err
		}
		specs = append(specs, fromFile...)
	}
	return specs, nil
}

// legacy is the model of --model-url and --model-name, named after its
// model and sent images, as before --model; nil without them.
func (f modelFlags) legacy(logger *slog.Logger) (*models.Spec, error) {
	key, err := f.key()
	switch {
	case err != nil:
		return nil, err
	case *f.url == "" && *f.name == "":
		if key != "" {
			logger.Warn("a model key is set but no model: set --model-url and --model-name, or use --model")
		}
		return nil, nil
	case *f.url == "" || *f.name == "":
		return nil, errors.New("a model needs both --model-url and --model-name")
	}
	s := models.Spec{Name: *f.name, Provider: llm.Kind(*f.provider), URL: *f.url, Model: *f.name, Key: key, Images: true}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("--model-url: %w", err)
	}
	return &s, nil
}

// key reads the key of --model-url from its file, or from the environment.
func (f modelFlags) key() (string, error) {
	if *f.keyFile == "" {
		return strings.TrimSpace(os.Getenv(modelKeyEnv)), nil
	}
	raw, err := os.ReadFile(*f.keyFile)
	if err != nil {
		return "", fmt.Errorf("--model-key-file: %w", err)
	}
	key := strings.TrimSpace(string(raw))
	if key == "" {
		return "", fmt.Errorf("--model-key-file %s is empty", *f.keyFile)
	}
	return key, nil
}
