package models

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Demo is the provider of the scripted demo model, which is not an AI.
const Demo llm.Kind = "demo"

// DemoName is the name the demo model is listed under.
const DemoName = "demo"

// Limits of a spec.
const (
	maxNameBytes = 64
	// maxTokensLimit caps a spec's MaxTokens.
	maxTokensLimit = 1_000_000
)

// Spec is one model the operator configured.
type Spec struct {
	// Name is how people and flags name it: letters, digits and
	// ".-_:/@", at most 64 bytes.
	Name string
	// Provider is the API its endpoint speaks: llm.OpenAI, llm.Anthropic,
	// or Demo.
	Provider llm.Kind
	// URL is the endpoint (see llm.Config.URL) and Model the model asked
	// for there; the demo model has neither.
	URL, Model string
	// Key is the operator's key of the endpoint; empty for none. It is a
	// secret: String and LogValue leave it out.
	Key string
	// Images says the model takes images.
	Images bool
	// MaxTokens caps each answer; 0 leaves it to the request, or to the
	// endpoint's default.
	MaxTokens int
}

// DemoSpec is the demo model's spec.
func DemoSpec() Spec { return Spec{Name: DemoName, Provider: Demo, Model: "scripted"} }

// String describes s without its key.
func (s Spec) String() string {
	return fmt.Sprintf("%s (%s %s at %s, key set: %v)", s.Name, s.Provider, s.Model, s.URL, s.Key != "")
}

// LogValue is s in a log line, without its key.
func (s Spec) LogValue() slog.Value {
	return slog.GroupValue(slog.String("name", s.Name), slog.String("provider", string(s.Provider)),
		slog.String("model", s.Model), slog.String("url", s.URL), slog.Bool("key", s.Key != ""))
}

// Check reports what is wrong with s, if anything. Its errors never hold
// the key.
func (s Spec) Check() error {
	if err := checkName(s.Name); err != nil {
		return err
	}
	switch s.Provider {
	case llm.OpenAI, llm.Anthropic:
	case Demo:
		if s.URL != "" || s.Key != "" {
			return errors.New("the demo model has no URL and no key")
		}
		return nil
	default:
		return fmt.Errorf("unknown provider %q (want %q or %q)", wire.Sanitize(string(s.Provider), 40), llm.OpenAI, llm.Anthropic)
	}
	if s.Model == "" {
		return errors.New("it names no model to ask for")
	}
	if s.MaxTokens < 0 || s.MaxTokens > maxTokensLimit {
		return fmt.Errorf("max tokens must be between 0 and %d", maxTokensLimit)
	}
	if err := checkURL(s.URL); err != nil {
		return err
	}
	if s.Key != "" && !keySafe(s.URL) {
		return errors.New("its key would travel unencrypted: use an https URL (plain http only to a loopback address)")
	}
	return nil
}

// checkName refuses a name people could not tell apart or type.
func checkName(name string) error {
	if name == "" {
		return errors.New("a model needs a name")
	}
	if len(name) > maxNameBytes || strings.IndexFunc(name, func(r rune) bool { return !nameRune(r) }) >= 0 {
		return fmt.Errorf("the name %q is not %d bytes or fewer of letters, digits and \".-_:/@\"", wire.Sanitize(name, maxNameBytes), maxNameBytes)
	}
	return nil
}

func nameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_:/@", r)
}

// checkURL refuses a URL that is not http or https with a host.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return errors.New("it has no URL")
	case err != nil:
		return errors.New("its URL cannot be parsed")
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("its URL must be http or https")
	case u.Hostname() == "":
		return errors.New("its URL has no host")
	case u.User != nil:
		return errors.New("its URL must not hold a user or password: name the key with key-file or key-env")
	}
	return nil
}

// keySafe says a key may go to raw: over https, or plain http to a
// loopback address, where it never crosses a network.
func keySafe(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "https" || urlnorm.IsLoopback(u.Hostname()))
}

// onLoopback says the URL's host is a loopback address or name.
func onLoopback(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && urlnorm.IsLoopback(u.Hostname())
}

// checkAll checks every spec and that their names are unique. Its errors name
// the spec and never hold a key.
func checkAll(specs []Spec) error {
	seen := map[string]bool{}
	for i, s := range specs {
		if err := s.Check(); err != nil {
			return fmt.Errorf("%s: %w", label(i, s.Name), err)
		}
		if seen[s.Name] {
			return fmt.Errorf("two models are named %q: a name must be unique", s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

// label names the i-th model (from 0) in an error.
func label(i int, name string) string {
	if name == "" {
		return fmt.Sprintf("model %d", i+1)
	}
	return fmt.Sprintf("model %d (%s)", i+1, wire.Sanitize(name, maxNameBytes))
}
