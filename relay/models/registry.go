package models

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// maxKeyBytes caps a person's key.
const maxKeyBytes = 4096

// demoPace is how long the demo model waits between the pieces of its
// answer, so that it streams as a model does.
const demoPace = 30 * time.Millisecond

// Help says how to configure a model, for a relay that has none but the demo.
const Help = "No model is configured: start the relay with --model " +
	"name=local,provider=openai,url=http://127.0.0.1:11434/v1,model=llama3.2 for Ollama on this machine, " +
	"or another --model or a --models FILE for an OpenAI-compatible or Anthropic endpoint."

// KeyStore keeps people's own keys, sealed; the store's model keys
// satisfy it.
type KeyStore interface {
	// Get is user's key for model; "" when none is set.
	Get(ctx context.Context, user, model string) (string, error)
	// Set stores user's key for model; an empty key deletes it.
	Set(ctx context.Context, user, model, key string) error
	// Names are the models user set a key for.
	Names(ctx context.Context, user string) ([]string, error)
}

// Options are what a [Registry] needs besides the specs.
type Options struct {
	// HTTPClient carries the requests to models: the relay's netguard
	// client. Nil fails every request.
	HTTPClient *http.Client
	// Local carries the requests to models whose URL is on a loopback
	// address, which the operator chose (Ollama, llama.cpp's server on
	// this machine): a netguard client that allows loopback. Nil uses
	// HTTPClient.
	Local  *http.Client
	Logger *slog.Logger // nil discards
	// Keys keeps people's own keys; nil refuses them.
	Keys KeyStore
}

// Registry holds the operator's named models and hands out their clients,
// with a person's own key when they set one. It is safe for concurrent use.
type Registry struct {
	specs  []Spec
	byName map[string]int
	models map[string]llm.Model // with the operator's key, and the demo model
	opts   Options
	log    *slog.Logger

	mu       sync.Mutex
	personal map[userModel]personal // clients with people's keys
}

// userModel names one person's client of one model.
type userModel struct{ user, model string }

// personal is a client with a person's key.
type personal struct {
	key    string
	client llm.Model
}

// New checks specs and builds their clients; the first spec is the
// default model.
func New(specs []Spec, opts Options) (*Registry, error) {
	if err := checkAll(specs); err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Registry{specs: append([]Spec(nil), specs...), byName: map[string]int{}, models: map[string]llm.Model{},
		opts: opts, log: opts.Logger, personal: map[userModel]personal{}}
	for i, s := range specs {
		r.byName[s.Name] = i
		if s.Provider == Demo {
			r.models[s.Name] = demoModel{pace: demoPace}
			continue
		}
		c, err := r.client(s, s.Key)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label(i, s.Name), err)
		}
		r.models[s.Name] = c
	}
	return r, nil
}

// client is s's client with key, through the client for its address.
func (r *Registry) client(s Spec, key string) (llm.Model, error) {
	hc := r.opts.HTTPClient
	if r.opts.Local != nil && onLoopback(s.URL) {
		hc = r.opts.Local
	}
	c, err := llm.New(llm.Config{Kind: s.Provider, URL: s.URL, Model: s.Model, Key: key, HTTPClient: hc, Logger: r.log})
	if err != nil {
		return nil, err
	}
	if s.MaxTokens > 0 {
		return capped{c, s.MaxTokens}, nil
	}
	return c, nil
}

// Default names the default model, the first; "" when none is configured.
func (r *Registry) Default() string {
	if len(r.specs) == 0 {
		return ""
	}
	return r.specs[0].Name
}

// Spec is the configured model name.
func (r *Registry) Spec(name string) (Spec, bool) {
	i, ok := r.byName[name]
	if !ok {
		return Spec{}, false
	}
	return r.specs[i], true
}

// Images says whether the model name takes images.
func (r *Registry) Images(name string) bool {
	s, _ := r.Spec(name)
	return s.Images
}

// List is the configured models as user sees them, the default first,
// each saying whether the operator and the person set a key; without a
// model other than the demo, Help says how to configure one.
func (r *Registry) List(ctx context.Context, user string) wire.ChatModelsResult {
	res := wire.ChatModelsResult{Models: []wire.ChatModel{}}
	if !slices.ContainsFunc(r.specs, func(s Spec) bool { return s.Provider != Demo }) {
		res.Help = Help
	}
	own := map[string]bool{}
	if r.opts.Keys != nil {
		names, err := r.opts.Keys.Names(ctx, user)
		if err != nil {
			r.log.Warn("read the models a person set keys for", "user", user, "err", err)
		}
		for _, n := range names {
			own[n] = true
		}
	}
	for _, s := range r.specs {
		res.Models = append(res.Models, wire.ChatModel{Name: s.Name, Provider: string(s.Provider), Model: s.Model,
			Key: s.Key != "", UserKey: own[s.Name] && s.Provider != Demo, Images: s.Images})
	}
	return res
}

// Model is the model name for user: with the person's own key when they
// set one, else with the operator's. Its errors are [*wire.Error]s.
func (r *Registry) Model(ctx context.Context, user, name string) (llm.Model, error) {
	s, ok := r.Spec(name)
	if !ok {
		return nil, unknown(name)
	}
	if s.Provider == Demo || r.opts.Keys == nil {
		return r.models[name], nil
	}
	key, err := r.opts.Keys.Get(ctx, user, name)
	if err != nil {
		r.log.Error("read a person's model key", "user", user, "model", name, "err", err)
		return nil, wire.NewError(wire.CodeInternal, "could not read your key for "+name+"; see the relay log")
	}
	if key == "" {
		return r.models[name], nil
	}
	um := userModel{user, name}
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.personal[um]; ok && p.key == key {
		return p.client, nil
	}
	c, err := r.client(s, key)
	if err != nil { // llm.New's errors never hold the key
		return nil, wire.NewError(wire.CodeBadRequest, "your key for "+name+" cannot be used: "+err.Error())
	}
	r.personal[um] = personal{key: key, client: c}
	return c, nil
}

// SetKey stores user's own key for the model name, sealed by the store;
// an empty key removes it. The key never comes back: only [Registry.List]
// says one is set. Its errors are [*wire.Error]s and never hold the key.
func (r *Registry) SetKey(ctx context.Context, user, name, key string) error {
	s, ok := r.Spec(name)
	switch key = strings.TrimSpace(key); {
	case !ok:
		return unknown(name)
	case s.Provider == Demo:
		return wire.NewError(wire.CodeBadRequest, "the demo model takes no key")
	case r.opts.Keys == nil:
		return wire.NewError(wire.CodeNotConfigured, "this relay keeps no personal model keys")
	case len(key) > maxKeyBytes:
		return wire.NewError(wire.CodeBadRequest, fmt.Sprintf("a key is at most %d bytes", maxKeyBytes))
	case strings.IndexFunc(key, func(c rune) bool { return c <= ' ' || c > '~' }) >= 0:
		return wire.NewError(wire.CodeBadRequest, "a key is one line of printable characters without spaces")
	case key != "" && !keySafe(s.URL):
		return wire.NewError(wire.CodeBadRequest, "the URL of "+name+" is plain http: a key would travel unencrypted")
	}
	if err := r.opts.Keys.Set(ctx, user, name, key); err != nil {
		r.log.Error("store a person's model key", "user", user, "model", name, "err", scrub(err.Error(), key))
		return wire.NewError(wire.CodeInternal, "could not save your key; see the relay log")
	}
	r.mu.Lock()
	delete(r.personal, userModel{user, name})
	r.mu.Unlock()
	r.log.Info("a person's model key changed", "user", user, "model", name, "set", key != "")
	return nil
}

// unknown is the error of a model that is not configured.
func unknown(name string) error {
	return wire.NewError(wire.CodeNotFound, fmt.Sprintf("no model named %q is configured", wire.Sanitize(name, maxNameBytes)))
}

// scrub removes key from s.
func scrub(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[key]")
}

// capped is a model whose answers are capped at max tokens.
type capped struct {
	m   llm.Model
	max int
}

// Stream asks for at most c.max tokens.
func (c capped) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	if req.MaxTokens == 0 || req.MaxTokens > c.max {
		r := *req
		r.MaxTokens = c.max
		req = &r
	}
	return c.m.Stream(ctx, req)
}
