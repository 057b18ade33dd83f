package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/metrics"
	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Kind is the API a model endpoint speaks.
type Kind string

// The kinds of endpoint.
const (
	// OpenAI is chat completions, as OpenAI, Ollama, llama.cpp's server,
	// vLLM, LM Studio and OpenRouter serve it.
	OpenAI Kind = "openai"
	// Anthropic is Anthropic's Messages API.
	Anthropic Kind = "anthropic"
)

// Paths appended to an endpoint's base URL, and the Anthropic API version.
const (
	openAIPath       = "/chat/completions"
	anthropicPath    = "/v1/messages"
	anthropicVersion = "2023-06-01"
	// maxErrorBodyBytes caps what of a refused request's body is read.
	maxErrorBodyBytes = 64 << 10
)

// Config describes a model endpoint.
type Config struct {
	Kind Kind
	// URL is the endpoint: for OpenAI its base ("https://api.openai.com/v1")
	// or the chat-completions URL; for Anthropic its base
	// ("https://api.anthropic.com") or the messages URL.
	URL string
	// Model is the model asked for.
	Model string
	// Key is the API key; empty sends no key (a local endpoint).
	Key string
	// HTTPClient carries the requests: the relay's netguard client. Nil
	// fails every request (the package never dials on its own).
	HTTPClient *http.Client
	Logger     *slog.Logger // nil discards
}

// Client streams answers of one model. It is safe for concurrent use.
type Client struct {
	cfg Config
	url string
	log *slog.Logger
}

// New checks cfg and returns its client. A key goes over plain http only
// to a loopback address.
func New(cfg Config) (*Client, error) {
	if cfg.Kind != OpenAI && cfg.Kind != Anthropic {
		return nil, fmt.Errorf("unknown kind of model endpoint %q (want %q or %q)", wire.Sanitize(string(cfg.Kind), 40), OpenAI, Anthropic)
	}
	if cfg.URL == "" || cfg.Model == "" {
		return nil, errors.New("a model needs a URL and a name")
	}
	if !strings.HasPrefix(cfg.URL, "https://") && !strings.HasPrefix(cfg.URL, "http://") {
		return nil, errors.New("the model URL must be http or https")
	}
	if u, err := url.Parse(cfg.URL); err != nil || u.Hostname() == "" {
		return nil, errors.New("the model URL has no host")
	} else if cfg.Key != "" && u.Scheme == "http" && !urlnorm.IsLoopback(u.Hostname()) {
		return nil, errors.New("the model key would travel unencrypted: use an https model URL (plain http only to a loopback address)")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Client{cfg: cfg, url: endpointURL(cfg.Kind, cfg.URL), log: cfg.Logger}, nil
}

// endpointURL is the URL requests of kind go to, from a base or full URL.
func endpointURL(kind Kind, raw string) string {
	u := strings.TrimRight(raw, "/")
	switch {
	case kind == OpenAI && !strings.HasSuffix(u, openAIPath):
		return u + openAIPath
	case kind == Anthropic && strings.HasSuffix(u, "/v1"):
		return u + "/messages"
	case kind == Anthropic && !strings.HasSuffix(u, anthropicPath):
		return u + anthropicPath
	}
	return u
}

// Model names the model asked for.
func (c *Client) Model() string { return c.cfg.Model }

// Stream sends req and yields the answer as it comes, ending with an
// [EventEnd], or with one error: an [*Error], or the context's error when
// ctx ends. Each range over the sequence sends the request anew. Leaving
// the loop early, or cancelling ctx, closes the connection at once.
func (c *Client) Stream(ctx context.Context, req *Request) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		started := time.Now()
		resp, err := c.send(ctx, req)
		if err != nil {
			metrics.ModelRequest(string(c.cfg.Kind), 0, 0, err)
			yield(Event{}, err)
			return
		}
		defer resp.Body.Close()
		dec := c.decoder()
		lim := limits{args: map[int]int{}}
		r := newSSEReader(resp.Body)
		var usage Usage
		for {
			ev, err := r.next()
			var out []Event
			var done bool
			if err == nil {
				out, done, err = dec.decode(ev)
			}
			if err == nil {
				err = lim.check(out)
			}
			if err != nil {
				metrics.ModelRequest(string(c.cfg.Kind), usage.InputTokens, usage.OutputTokens, err)
				yield(Event{}, c.streamError(ctx, err))
				return
			}
			for _, e := range out {
				switch e.Type {
				case EventUsage:
					usage = e.Usage
				case EventEnd: // before yielding: a reader may stop at the end
					metrics.ModelRequest(string(c.cfg.Kind), usage.InputTokens, usage.OutputTokens, nil)
					c.log.Info("model answered", "kind", c.cfg.Kind, "model", e.Model, "stop", e.StopReason,
						"input_tokens", usage.InputTokens, "output_tokens", usage.OutputTokens, "took", time.Since(started).Round(time.Millisecond))
				}
				if !yield(e, nil) {
					return
				}
			}
			if done {
				return
			}
		}
	}
}

// decoder reads one provider's events.
type decoder interface {
	// decode turns one server-sent event into events; done is the end.
	decode(ev sseEvent) (out []Event, done bool, err error)
}

func (c *Client) decoder() decoder {
	if c.cfg.Kind == Anthropic {
		return &anthropicDecoder{model: c.cfg.Model, blocks: map[int]string{}}
	}
	return &openAIDecoder{model: c.cfg.Model, calls: map[int]bool{}}
}

// send posts req and returns the response of an accepted request.
func (c *Client) send(ctx context.Context, req *Request) (*http.Response, error) {
	if c.cfg.HTTPClient == nil {
		return nil, &Error{Message: "the model client has no HTTP client"}
	}
	body, err := c.encode(req)
	if err != nil {
		return nil, c.clean(err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, &Error{Message: "the model URL cannot be used"}
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	c.authorize(hr.Header)
	resp, err := c.cfg.HTTPClient.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		c.log.Warn("model request failed", "kind", c.cfg.Kind, "error", c.scrub(err.Error()))
		return nil, c.clean(fmt.Errorf("could not reach the model endpoint: %w", err))
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, c.refused(resp)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		resp.Body.Close()
		return nil, &Error{Message: "the model endpoint answered JSON, not a stream of events"}
	}
	return resp, nil
}

// encode is req in the endpoint's own format.
func (c *Client) encode(req *Request) ([]byte, error) {
	if err := checkRequest(req); err != nil {
		return nil, err
	}
	if c.cfg.Kind == Anthropic {
		return encodeAnthropic(c.cfg.Model, req)
	}
	return encodeOpenAI(c.cfg.Model, req)
}

// authorize sets the key's header (none without a key) and the API version.
func (c *Client) authorize(h http.Header) {
	if c.cfg.Kind == Anthropic {
		h.Set("anthropic-version", anthropicVersion)
		if c.cfg.Key != "" {
			h.Set("x-api-key", c.cfg.Key)
		}
		return
	}
	if c.cfg.Key != "" {
		h.Set("Authorization", "Bearer "+c.cfg.Key)
	}
}

// refused is the error of a request the endpoint answered with a status
// other than 2xx.
func (c *Client) refused(resp *http.Response) *Error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodyBytes))
	c.log.Warn("model endpoint refused", "kind", c.cfg.Kind, "status", resp.StatusCode)
	e := c.clean(fmt.Errorf("the model endpoint answered %s: %s", resp.Status, errorText(c.scrub(string(raw)))))
	e.Status = resp.StatusCode
	e.RetryAfter = retryAfter(resp.Header, time.Now())
	return e
}

// streamError is the error that ends a stream: the context's when it
// ended, an [*Error] otherwise.
func (c *Client) streamError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	e := c.clean(err)
	c.log.Warn("model answer failed", "kind", c.cfg.Kind, "status", e.Status, "error", e.Message)
	return e
}

// clean is err as an [*Error] whose message is one capped line without
// the key.
func (c *Client) clean(err error) *Error {
	e := &Error{}
	if pe, ok := errors.AsType[*Error](err); ok {
		*e = *pe
	} else {
		e.Message = err.Error()
	}
	e.Message = wire.Sanitize(c.scrub(e.Message), maxErrorRunes)
	return e
}

// scrub removes the key from s, should an endpoint or a library echo it.
func (c *Client) scrub(s string) string {
	if c.cfg.Key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.cfg.Key, "[key]")
}

// limits counts a stream's tool calls and the size of their arguments.
type limits struct {
	calls int
	args  map[int]int
}

func (l *limits) check(evs []Event) error {
	for _, e := range evs {
		switch e.Type {
		case EventToolCall:
			if l.calls++; l.calls > MaxToolCalls {
				return fmt.Errorf("the model called over %d tools in one answer", MaxToolCalls)
			}
		case EventToolArgs:
			if l.args[e.Index] += len(e.Text); l.args[e.Index] > MaxArgumentBytes {
				return fmt.Errorf("the arguments of a tool call are over %d bytes", MaxArgumentBytes)
			}
		}
	}
	return nil
}
