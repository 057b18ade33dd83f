package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Defaults and caps.
const (
	// DefaultTimeout bounds one draft.
	DefaultTimeout = 2 * time.Minute
	// completionsPath is appended to an endpoint URL that does not end in it.
	completionsPath = "/chat/completions"
	// maxResponseBytes caps the endpoint's answer.
	maxResponseBytes = 4 << 20
	// maxErrorBodyRunes caps what of an endpoint's error is shown.
	maxErrorBodyRunes = 200
)

// Config describes the endpoint.
type Config struct {
	// URL is the endpoint: its base ("https://api.openai.com/v1") or the
	// chat-completions URL itself.
	URL string
	// Name is the model asked for, and the model an answer names.
	Name string
	// Key is the bearer token; empty sends no Authorization header (a local
	// endpoint).
	Key string
	// HTTPClient carries the requests: the relay's netguard client. Nil
	// fails every draft (the package does not dial on its own).
	HTTPClient *http.Client
	Timeout    time.Duration // default DefaultTimeout
	Logger     *slog.Logger  // nil discards
}

// Client drafts sampling answers with the configured model. It is safe for
// concurrent use.
type Client struct {
	cfg Config
	url string
	log *slog.Logger
}

// New checks cfg and returns its client.
func New(cfg Config) (*Client, error) {
	if cfg.URL == "" || cfg.Name == "" {
		return nil, errors.New("a model needs a URL and a name")
	}
	if !strings.HasPrefix(cfg.URL, "https://") && !strings.HasPrefix(cfg.URL, "http://") {
		return nil, fmt.Errorf("the model URL must be http or https")
	}
	if u, err := url.Parse(cfg.URL); err != nil || u.Hostname() == "" {
		return nil, errors.New("the model URL has no host")
	} else if cfg.Key != "" && u.Scheme == "http" && !urlnorm.IsLoopback(strings.ToLower(u.Hostname())) {
		return nil, errors.New("the model key would travel unencrypted: use an https model URL (plain http only to a loopback address)")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	u := strings.TrimRight(cfg.URL, "/")
	if !strings.HasSuffix(u, completionsPath) {
		u += completionsPath
	}
	return &Client{cfg: cfg, url: u, log: cfg.Logger}, nil
}

// Name names the model.
func (c *Client) Name() string { return c.cfg.Name }

// Draft sends req to the model and returns its message. Errors are
// [*wire.Error]s of code [wire.CodeUpstream] (or the context's error).
func (c *Client) Draft(ctx context.Context, req *wire.SamplingRequest) (wire.SamplingResult, error) {
	if c.cfg.HTTPClient == nil {
		return wire.SamplingResult{}, wire.NewError(wire.CodeInternal, "the model client has no HTTP client")
	}
	body, err := json.Marshal(toChatRequest(c.cfg.Name, req))
	if err != nil {
		return wire.SamplingResult{}, wire.NewError(wire.CodeInternal, "could not encode the request for the model")
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return wire.SamplingResult{}, wire.NewError(wire.CodeInternal, "the model URL cannot be used")
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	if c.cfg.Key != "" {
		hr.Header.Set("Authorization", "Bearer "+c.cfg.Key)
	}
	started := time.Now()
	resp, err := c.cfg.HTTPClient.Do(hr)
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled) {
			return wire.SamplingResult{}, ctx.Err()
		}
		c.log.Warn("model request failed", "error", c.scrub(err.Error()))
		return wire.SamplingResult{}, c.fail("could not reach the model endpoint: " + err.Error())
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	switch {
	case err != nil:
		return wire.SamplingResult{}, c.fail("the model's answer broke off: " + err.Error())
	case len(raw) > maxResponseBytes:
		return wire.SamplingResult{}, c.fail(fmt.Sprintf("the model's answer is over %d bytes", maxResponseBytes))
	case resp.StatusCode/100 != 2:
		c.log.Warn("model endpoint refused", "status", resp.StatusCode)
		return wire.SamplingResult{}, c.fail(fmt.Sprintf("the model endpoint answered %s: %s", resp.Status, errorText([]byte(c.scrub(string(raw))))))
	}
	var cr chatResponse
	if err := json.Unmarshal(raw, &cr); err != nil {
		return wire.SamplingResult{}, c.fail("the model's answer is not chat-completions JSON")
	}
	res, err := fromChatResponse(c.cfg.Name, cr)
	if err != nil {
		return wire.SamplingResult{}, c.fail(err.Error())
	}
	c.log.Info("model drafted", "model", res.Model, "blocks", len(res.Content), "took", time.Since(started).Round(time.Millisecond))
	return res, nil
}

// fail is an upstream error whose message never holds the key.
func (c *Client) fail(msg string) *wire.Error {
	return wire.NewError(wire.CodeUpstream, c.scrub(msg))
}

// scrub removes the key from s, should an endpoint or a library echo it.
func (c *Client) scrub(s string) string {
	if c.cfg.Key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.cfg.Key, "[key]")
}

// errorText is the message of an endpoint's error body, capped. The body
// must be scrubbed first: a key the cap cuts would no longer be found.
func errorText(raw []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Error.Message != "" {
		return wire.Sanitize(e.Error.Message, maxErrorBodyRunes)
	}
	return wire.Sanitize(string(raw), maxErrorBodyRunes)
}
