package modelfixture

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// statusOverloaded is Anthropic's status for overloaded_error.
const statusOverloaded = 529

// openAIError is OpenAI's error body, and its mid-stream error chunk.
type openAIError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

// anthropicError is Anthropic's error body, and its error event's data.
type anthropicError struct {
	Type  string `json:"type"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	RequestID string `json:"request_id,omitempty"`
}

// writeError answers status with the provider's error JSON; typ and msg
// default to what the provider says for status.
func writeError(w http.ResponseWriter, req *Request, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if req.Provider == OpenAI {
		json.NewEncoder(w).Encode(newOpenAIError(status, typ, msg))
		return
	}
	e := newAnthropicError(status, typ, msg)
	e.RequestID = fmt.Sprintf("req_fixture_%d", req.N)
	json.NewEncoder(w).Encode(e)
}

// newOpenAIError is OpenAI's error for status.
func newOpenAIError(status int, typ, msg string) openAIError {
	var e openAIError
	var code string
	switch {
	case status == http.StatusUnauthorized:
		typ, code = or(typ, "invalid_request_error"), "invalid_api_key"
		msg = or(msg, "Incorrect API key provided.")
	case status == http.StatusTooManyRequests:
		typ, code = or(typ, "rate_limit_exceeded"), "rate_limit_exceeded"
		msg = or(msg, "Rate limit reached for requests")
	case status >= 500:
		typ = or(typ, "server_error")
	default:
		typ = or(typ, "invalid_request_error")
	}
	e.Error.Type, e.Error.Message = typ, or(msg, or(http.StatusText(status), "error"))
	if code != "" {
		e.Error.Code = &code
	}
	return e
}

// newAnthropicError is Anthropic's error for status.
func newAnthropicError(status int, typ, msg string) anthropicError {
	types := map[int]string{
		http.StatusBadRequest: "invalid_request_error", http.StatusUnauthorized: "authentication_error",
		http.StatusForbidden: "permission_error", http.StatusNotFound: "not_found_error",
		http.StatusRequestEntityTooLarge: "request_too_large", http.StatusTooManyRequests: "rate_limit_error",
		http.StatusInternalServerError: "api_error", statusOverloaded: "overloaded_error",
	}
	if typ == "" {
		typ = types[status]
	}
	if typ == "" && status >= 500 {
		typ = "api_error"
	} else if typ == "" {
		typ = "invalid_request_error"
	}
	messages := map[string]string{"authentication_error": "invalid x-api-key", "overloaded_error": "Overloaded"}
	msg = or(msg, or(messages[typ], or(http.StatusText(status), "error")))
	var e anthropicError
	e.Type, e.Error.Type, e.Error.Message = "error", typ, msg
	return e
}

// failDefaults are a mid-stream error's type and message, defaulted.
func failDefaults(p Provider, f Fail) (typ, msg string) {
	if p == OpenAI {
		return or(f.Type, "server_error"), or(f.Message, "The server had an error while processing your request.")
	}
	return or(f.Type, "overloaded_error"), or(f.Message, "Overloaded")
}

// or is s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
