package mcpservers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Limits on one document.
const (
	MaxDocumentBytes = 512 << 10 // a file larger than this is refused whole; it fits in one op frame
	MaxEntries       = 500       // servers in one document
	MaxHeaders       = 32        // headers of one entry
	MaxArgs          = 256       // arguments of one stdio command
	MaxEnv           = 128       // environment variables of one stdio command
)

// Entry is one server of a document, in the document's order. Exactly one
// of HTTP, Stdio and Problem is set.
type Entry struct {
	Name    string // as written; may be empty or too long, the relay checks it
	HTTP    *HTTP
	Stdio   *Stdio
	Problem string // why the entry cannot be read, in plain words
}

// HTTP is a server reached over HTTP.
type HTTP struct {
	URL string
	// Transport is wire.TransportStreamable or wire.TransportSSE as the
	// entry said, or "" when it did not say (the relay's default applies).
	Transport wire.Transport
	Headers   map[string]string // values are secrets
}

// Stdio is a server the client starts as a local command.
type Stdio struct {
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
}

// entry is an entry as the supported layouts write it.
type entry struct {
	URL       string            `json:"url"`
	ServerURL string            `json:"serverUrl"` // Windsurf's spelling of url
	Type      string            `json:"type"`
	Transport string            `json:"transport"`
	Headers   map[string]string `json:"headers"`
	Command   string            `json:"command"`
	Args      []string          `json:"args"`
	Env       map[string]string `json:"env"`
	Cwd       string            `json:"cwd"`
}

// Parse reads the servers of a document in one of the package's layouts.
// It fails only when the document as a whole cannot be read; an entry that
// cannot be taken is returned with its Problem.
func Parse(doc []byte) ([]Entry, error) {
	if len(doc) > MaxDocumentBytes {
		return nil, fmt.Errorf("the file is over %d bytes", MaxDocumentBytes)
	}
	raw, err := serversObject(doc)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New(`the servers are not a JSON object of name: server`)
	}
	var out []Entry
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("read the servers: %w", err)
		}
		name, _ := t.(string)
		var body json.RawMessage
		if err := dec.Decode(&body); err != nil {
			return nil, fmt.Errorf("read server %q: %w", wire.Sanitize(name, wire.MaxServerName), err)
		}
		if len(out) == MaxEntries {
			return nil, fmt.Errorf("more than %d servers in one file", MaxEntries)
		}
		e := readEntry(name, body)
		if seen[name] {
			e = Entry{Name: name, Problem: "another entry of the file has this name; only the first is taken"}
		}
		seen[name] = true
		out = append(out, e)
	}
	return out, nil
}

// serversObject finds the object of servers in doc.
func serversObject(doc []byte) (json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if raw, ok := top["mcpServers"]; ok {
		return raw, nil
	}
	if raw, ok := top["servers"]; ok {
		return raw, nil
	}
	if raw, ok := top["mcp"]; ok {
		var mcp map[string]json.RawMessage
		if json.Unmarshal(raw, &mcp) == nil && mcp["servers"] != nil {
			return mcp["servers"], nil
		}
	}
	return nil, errors.New(`no "mcpServers" object (nor VS Code's "servers")`)
}

// readEntry reads one entry.
func readEntry(name string, body json.RawMessage) Entry {
	var d entry
	if err := json.Unmarshal(body, &d); err != nil {
		return Entry{Name: name, Problem: "not a server object (url, type, headers or command, args, env)"}
	}
	u := d.URL
	if u == "" {
		u = d.ServerURL
	}
	kind := d.Type
	if kind == "" {
		kind = d.Transport
	}
	kind = strings.ToLower(strings.ReplaceAll(strings.TrimSpace(kind), "_", "-"))
	switch {
	case d.Command != "" && u != "":
		return Entry{Name: name, Problem: "has both a command and a url; say one"}
	case d.Command != "" || kind == "stdio":
		return stdioEntry(name, d)
	case u == "":
		return Entry{Name: name, Problem: "no url"}
	}
	var transport wire.Transport
	switch kind {
	case "":
	case "http", "streamable-http", "streamablehttp", "streamable":
		transport = wire.TransportStreamable
	case "sse":
		transport = wire.TransportSSE
	default:
		return Entry{Name: name, Problem: fmt.Sprintf("unknown type %q (use http, streamable-http or sse)", wire.Sanitize(kind, 40))}
	}
	if len(d.Headers) > MaxHeaders {
		return Entry{Name: name, Problem: fmt.Sprintf("more than %d headers", MaxHeaders)}
	}
	return Entry{Name: name, HTTP: &HTTP{URL: u, Transport: transport, Headers: d.Headers}}
}

func stdioEntry(name string, d entry) Entry {
	switch {
	case d.Command == "":
		return Entry{Name: name, Problem: `type "stdio" without a command`}
	case len(d.Args) > MaxArgs:
		return Entry{Name: name, Problem: fmt.Sprintf("more than %d arguments", MaxArgs)}
	case len(d.Env) > MaxEnv:
		return Entry{Name: name, Problem: fmt.Sprintf("more than %d environment variables", MaxEnv)}
	}
	return Entry{Name: name, Stdio: &Stdio{Command: d.Command, Args: d.Args, Env: d.Env, Cwd: d.Cwd}}
}
