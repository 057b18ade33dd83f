package llm

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Caps of what an endpoint says in an error.
const (
	maxProviderMessageRunes = 200
	maxErrorRunes           = 400
	// maxRetryAfterSeconds caps a Retry-After in seconds.
	maxRetryAfterSeconds = 24 * 60 * 60
)

// Error is a model endpoint's refusal, an error it reported mid-stream, a
// broken or oversized stream, or a request this package cannot send. Its
// Message is one sanitized line and never holds the key.
type Error struct {
	// Status is the HTTP status of a refused request (or the status the
	// provider's mid-stream error type stands for); 0 otherwise.
	Status int
	// RetryAfter is how long the endpoint asked to wait (Retry-After);
	// 0 when it did not say.
	RetryAfter time.Duration
	Message    string
}

func (e *Error) Error() string { return e.Message }

// anthropicErrorStatus is the HTTP status of each Anthropic error type,
// for errors that arrive as a stream event.
var anthropicErrorStatus = map[string]int{
	"invalid_request_error": 400, "authentication_error": 401, "permission_error": 403,
	"not_found_error": 404, "request_too_large": 413, "rate_limit_error": 429,
	"api_error": 500, "overloaded_error": 529,
}

// providerError is the error object both providers send, in a refused
// request's body or mid-stream.
type providerError struct {
	Type    string          `json:"type"`
	Message string          `json:"message"`
	Code    json.RawMessage `json:"code"`
}

// status is the HTTP status the error stands for, if it says one: an
// Anthropic type, or an OpenAI-compatible numeric code.
func (p *providerError) status() int {
	if s, ok := anthropicErrorStatus[p.Type]; ok {
		return s
	}
	if n, err := strconv.Atoi(strings.Trim(string(p.Code), `"`)); err == nil && n >= 400 && n < 600 {
		return n
	}
	return 0
}

// errorText is the message of a refused request's body. The body must be
// scrubbed first: a key the cap cuts would no longer be found.
func errorText(body string) string {
	var e struct {
		Error providerError `json:"error"`
	}
	if json.Unmarshal([]byte(body), &e) == nil && e.Error.Message != "" {
		return wire.Sanitize(e.Error.Message, maxProviderMessageRunes)
	}
	return wire.Sanitize(body, maxProviderMessageRunes)
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		return time.Duration(min(max(s, 0), maxRetryAfterSeconds)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
