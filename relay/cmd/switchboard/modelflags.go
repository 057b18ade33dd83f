package main

import (
	"fmt"
	"os"
	"strings"
)

// modelKeyEnv holds the model endpoint's key; it is not a flag, so that it
// never shows in a process listing.
const modelKeyEnv = "SWITCHBOARD_MODEL_KEY"

// modelFlags configure the model that drafts sampling answers.
type modelFlags struct {
	url, name, keyFile *string
}

func addModelFlags(fs *flagSet) modelFlags {
	return modelFlags{
		url:     fs.String("model-url", "", "OpenAI-compatible endpoint that drafts sampling answers (its base, e.g. https://api.openai.com/v1, or its /chat/completions URL); reached through the relay's outbound guard"),
		name:    fs.String("model-name", "", "model to ask for at --model-url"),
		keyFile: fs.String("model-key-file", "", "file holding the key of --model-url (or set $"+modelKeyEnv+")"),
	}
}

// key reads the model key from its file, or from the environment.
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
