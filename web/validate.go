package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// maxServerName is the longest server name the relay accepts, in characters.
const maxServerName = wire.MaxServerName

// Form checks return the problem to show beside the form, in words for a
// person, or "" when the input can be sent.

// checkAddServer checks the add-server form and returns the op's arguments.
// An empty transport is Streamable HTTP.
func checkAddServer(name, rawURL, transport string) (args wire.AddServerArgs, problem string) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return args, "Give the server a name."
	case utf8.RuneCountInString(name) > maxServerName:
		return args, fmt.Sprintf("The name is longer than %d characters.", maxServerName)
	}
	u, err := urlnorm.Normalize(rawURL)
	if err != nil {
		reason := strings.TrimPrefix(strings.TrimPrefix(err.Error(), urlnorm.ErrInvalid.Error()), ": ")
		return args, fmt.Sprintf("The URL cannot be used: %s. Enter an address like https://example.com/mcp.", reason)
	}
	switch transport {
	case "":
		transport = wire.TransportStreamable
	case wire.TransportStreamable, wire.TransportSSE:
	default:
		return args, "Choose Streamable HTTP or SSE as the transport."
	}
	return wire.AddServerArgs{Name: name, URL: u, Transport: transport}, ""
}

// parseToolArgs checks that text is one JSON object and returns it compacted.
func parseToolArgs(text string) (args json.RawMessage, problem string) {
	trimmed := strings.TrimSpace(text)
	if !strings.HasPrefix(trimmed, "{") {
		return nil, `The arguments must be a JSON object, like {} or {"name": "value"}.`
	}
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(trimmed))
	if err := dec.Decode(&obj); err != nil {
		return nil, "The arguments are not valid JSON: " + jsonErrorAt(trimmed, err) + "."
	}
	if int(dec.InputOffset()) != len(trimmed) {
		return nil, "The arguments must be a single JSON object; there is more text after it."
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(trimmed)); err != nil {
		return nil, "The arguments are not valid JSON: " + jsonErrorAt(trimmed, err) + "."
	}
	return b.Bytes(), ""
}

// jsonErrorAt describes a decoding error with its line and column when it has an offset.
func jsonErrorAt(text string, err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		before := text[:min(int(syn.Offset), len(text))]
		line := strings.Count(before, "\n") + 1
		col := utf8.RuneCountInString(before[strings.LastIndex(before, "\n")+1:])
		return fmt.Sprintf("%s (line %d, column %d)", syn.Error(), line, col)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "it ends too early; is a closing } or \" missing?"
	}
	return err.Error()
}

// missingPromptArgs returns the required arguments of p left empty in values.
func missingPromptArgs(p wire.Prompt, values map[string]string) []string {
	var missing []string
	for _, a := range p.Arguments {
		if a.Required && strings.TrimSpace(values[a.Name]) == "" {
			missing = append(missing, a.Name)
		}
	}
	return missing
}
