package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/shared/servercfg"
	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// maxServerName is the longest server name the relay accepts, in characters.
const maxServerName = wire.MaxServerName

// Form checks return the problem to show beside the form, in words for a
// person, or "" when the input can be sent.

// Fields of the server forms a problem is about, for aria-invalid.
const (
	fieldName     = "name"
	fieldServerID = "id"
	fieldURL      = "url"
	fieldHeaders  = "headers"
	fieldRetry    = "retry"
)

// addInput is what the add-server form holds.
type addInput struct {
	Name, ID, URL string
	Transport     wire.Transport
	Headers       []headerRow
	Taken         []string // the names of the person's servers
}

// headerRow is one header row of a server form.
type headerRow struct{ Name, Value string }

// checkAddServer checks the add-server form as the relay will, and returns
// the op's arguments, or the problem in plain words and the field it is
// about. An empty transport is auto.
func checkAddServer(in addInput) (args wire.AddServerArgs, problem, field string) {
	name, problem := checkServerName(in.Name, in.Taken)
	if problem != "" {
		return args, problem, fieldName
	}
	var id string
	if strings.TrimSpace(in.ID) != "" {
		var err error
		if id, err = servercfg.NormalizeID(in.ID); err != nil {
			return args, "The id cannot be used: " + err.Error() + ".", fieldServerID
		}
	}
	u, problem := checkServerURL(in.URL)
	if problem != "" {
		return args, problem, fieldURL
	}
	transport := in.Transport
	switch transport {
	case "":
		transport = wire.TransportAuto
	case wire.TransportAuto, wire.TransportStreamable, wire.TransportSSE:
	default:
		return args, "Choose auto, Streamable HTTP or SSE as the transport.", ""
	}
	headers, problem := checkHeaderRows(in.Headers, true)
	if problem != "" {
		return args, problem, fieldHeaders
	}
	return wire.AddServerArgs{Name: name, ID: id, URL: u, Transport: transport, Headers: headers}, "", ""
}

// checkServerName checks a server name: not empty, not too long, not one of
// taken.
func checkServerName(raw string, taken []string) (string, string) {
	name := strings.TrimSpace(raw)
	switch n := utf8.RuneCountInString(name); {
	case name == "":
		return "", "Give the server a name."
	case n > maxServerName:
		return "", fmt.Sprintf("The name is %d characters long; the limit is %d.", n, maxServerName)
	case slices.Contains(taken, name):
		return "", fmt.Sprintf("You already have a server named “%s”: server names are unique.", name)
	}
	return name, ""
}

// checkServerURL normalizes a server URL as the relay will, or explains why
// it cannot be used.
func checkServerURL(raw string) (string, string) {
	u, err := urlnorm.Normalize(raw)
	if err != nil {
		reason := strings.TrimPrefix(strings.TrimPrefix(err.Error(), urlnorm.ErrInvalid.Error()), ": ")
		return "", fmt.Sprintf("The URL cannot be used: %s. Enter an address like https://example.com/mcp.", reason)
	}
	return u, ""
}

// checkHeaderRows checks header rows; rows left empty are skipped. With
// needValue a named header needs a value (an edit leaves it empty to keep
// the value).
func checkHeaderRows(rows []headerRow, needValue bool) (map[string]string, string) {
	var out map[string]string
	for _, r := range rows {
		name := strings.TrimSpace(r.Name)
		switch {
		case name == "" && r.Value == "":
			continue
		case name == "":
			return nil, "A header has a value but no name."
		case r.Value == "" && needValue:
			return nil, fmt.Sprintf("Enter a value for the header %s.", servercfg.CanonicalHeader(name))
		}
		if err := servercfg.CheckHeader(name, r.Value); err != nil {
			return nil, upperFirst(err.Error()) + "."
		}
		if out == nil {
			out = map[string]string{}
		}
		out[servercfg.CanonicalHeader(name)] = r.Value
	}
	if len(out) > servercfg.MaxHeaders {
		return nil, fmt.Sprintf("A server may have at most %d headers.", servercfg.MaxHeaders)
	}
	return out, ""
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
