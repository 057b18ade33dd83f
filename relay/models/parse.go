package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// maxFileBytes caps a models file, and a key file.
const maxFileBytes = 1 << 20

// entry is one model as the file or a flag gives it: the key only named,
// by the file or the environment variable that holds it.
type entry struct {
	Name      string   `json:"name"`
	Provider  llm.Kind `json:"provider"`
	URL       string   `json:"url"`
	Model     string   `json:"model"`
	KeyFile   string   `json:"keyFile"`
	KeyEnv    string   `json:"keyEnv"`
	Images    bool     `json:"images"`
	MaxTokens int      `json:"maxTokens"`
	// Key is refused: a key is never written in the file itself.
	Key *json.RawMessage `json:"key"`
}

// errKeyInline refuses a key given where it would be seen.
var errKeyInline = errors.New("a key is never given in place: name the file that holds it (keyFile, key-file) or the environment variable (keyEnv, key-env)")

// ParseFile reads a JSON file of models: a list of objects with name,
// provider ("openai", the default, or "anthropic"), url, model, images,
// maxTokens, and the key named by keyFile (a path, relative to the file's
// directory) or keyEnv (an environment variable), read now. Its errors
// name the file and the entry, never a key.
func ParseFile(path string) ([]Spec, error) {
	raw, err := readCapped(path)
	if err != nil {
		return nil, fmt.Errorf("models file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var entries []entry
	if err := dec.Decode(&entries); err != nil {
		return nil, fmt.Errorf("models file %s: not a JSON list of models: %w", path, err)
	}
	specs := make([]Spec, len(entries))
	for i, e := range entries {
		if specs[i], err = e.spec(filepath.Dir(path)); err != nil {
			return nil, fmt.Errorf("models file %s: %s: %w", path, label(i, e.Name), err)
		}
	}
	if err := checkAll(specs); err != nil {
		return nil, fmt.Errorf("models file %s: %w", path, err)
	}
	return specs, nil
}

// ParseFlag reads one --model value: comma-separated key=value pairs
// name, provider, url, model, key-file or key-env, images (true or false)
// and max-tokens, as in
//
//	name=gpt,provider=openai,url=https://api.openai.com/v1,model=gpt-4o,key-env=OPENAI_API_KEY
//
// A key file's path is relative to the working directory. Its errors name
// the model, never a key.
func ParseFlag(value string) (Spec, error) {
	var e entry
	var bad error
	for item := range strings.SplitSeq(value, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			bad = firstErr(bad, fmt.Errorf("%q is not key=value", wire.Sanitize(k, 40)))
			continue
		}
		switch k {
		case "name":
			e.Name = v
		case "provider":
			e.Provider = llm.Kind(v)
		case "url":
			e.URL = v
		case "model":
			e.Model = v
		case "key-file":
			e.KeyFile = v
		case "key-env":
			e.KeyEnv = v
		case "images":
			b, err := strconv.ParseBool(v)
			if err != nil {
				bad = firstErr(bad, errors.New("images must be true or false"))
			}
			e.Images = b
		case "max-tokens":
			n, err := strconv.Atoi(v)
			if err != nil {
				bad = firstErr(bad, errors.New("max-tokens must be a whole number"))
			}
			e.MaxTokens = n
		case "key":
			bad = firstErr(bad, errKeyInline)
		default:
			bad = firstErr(bad, fmt.Errorf("unknown setting %q (want name, provider, url, model, key-file, key-env, images, max-tokens)", wire.Sanitize(k, 40)))
		}
	}
	name := "--model"
	if e.Name != "" {
		name += " " + wire.Sanitize(e.Name, maxNameBytes)
	}
	if bad != nil {
		return Spec{}, fmt.Errorf("%s: %w", name, bad)
	}
	s, err := e.spec("")
	if err == nil {
		err = s.Check()
	}
	if err != nil {
		return Spec{}, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// firstErr keeps the first error.
func firstErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// spec is the entry's spec, its key read; a key file's relative path is
// under dir.
func (e entry) spec(dir string) (Spec, error) {
	if e.Key != nil {
		return Spec{}, errKeyInline
	}
	if e.Provider == "" {
		e.Provider = llm.OpenAI
	}
	if e.Provider == Demo {
		return Spec{}, errors.New("the demo model is added by --demo, not configured")
	}
	key, err := readKey(e.KeyFile, e.KeyEnv, dir)
	if err != nil {
		return Spec{}, err
	}
	return Spec{Name: e.Name, Provider: e.Provider, URL: e.URL, Model: e.Model, Key: key, Images: e.Images, MaxTokens: e.MaxTokens}, nil
}

// readKey reads the key from its file or its environment variable.
func readKey(file, env, dir string) (string, error) {
	switch {
	case file != "" && env != "":
		return "", errors.New("give the key's file or its environment variable, not both")
	case env != "":
		key := strings.TrimSpace(os.Getenv(env))
		if key == "" {
			return "", fmt.Errorf("$%s, which should hold its key, is not set", wire.Sanitize(env, 100))
		}
		return key, nil
	case file != "":
		if dir != "" && !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		raw, err := readCapped(file)
		if err != nil {
			return "", fmt.Errorf("its key file: %w", err)
		}
		key := strings.TrimSpace(string(raw))
		if key == "" {
			return "", fmt.Errorf("its key file %s is empty", file)
		}
		return key, nil
	}
	return "", nil
}

// readCapped reads a file of at most maxFileBytes.
func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, maxFileBytes+1)); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if buf.Len() > maxFileBytes {
		return nil, fmt.Errorf("%s is over %d bytes", path, maxFileBytes)
	}
	return buf.Bytes(), nil
}
