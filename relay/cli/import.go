package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// importEntry is one server of an mcpServers file, in the file's order.
type importEntry struct {
	Name string
	Raw  json.RawMessage
}

// desktopServer is an entry of the mcpServers layout desktop MCP clients
// use. HTTP entries have a URL; stdio ones a command.
type desktopServer struct {
	URL       string            `json:"url"`
	ServerURL string            `json:"serverUrl"` // another client's spelling of url
	Type      string            `json:"type"`
	Transport string            `json:"transport"`
	Command   string            `json:"command"`
	Headers   map[string]string `json:"headers"`
}

// maxImportEntries bounds one file.
const maxImportEntries = 500

// parseImport reads the servers of an mcpServers file (or a "servers"
// object, as some editors write it), keeping their order.
func parseImport(b []byte) ([]importEntry, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	raw, ok := top["mcpServers"]
	if !ok {
		raw, ok = top["servers"]
	}
	if !ok {
		return nil, errors.New(`no "mcpServers" object`)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New(`"mcpServers" is not an object`)
	}
	var out []importEntry
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("read mcpServers: %w", err)
		}
		var e importEntry
		e.Name, _ = t.(string)
		if err := dec.Decode(&e.Raw); err != nil {
			return nil, fmt.Errorf("read server %q: %w", e.Name, err)
		}
		if len(out) == maxImportEntries {
			return nil, fmt.Errorf("more than %d servers in one file", maxImportEntries)
		}
		out = append(out, e)
	}
	return out, nil
}

// importEntries registers each HTTP entry and says, one line each, what
// became of every entry: added, already there, or not taken and why.
func importEntries(ctx context.Context, st *store.Store, user string, entries []importEntry, out io.Writer) error {
	var added, existing, skipped int
	for _, e := range entries {
		name := wire.Sanitize(e.Name, wire.MaxServerName)
		args, why := httpEntry(e)
		if why != "" {
			skipped++
			fmt.Fprintf(out, "not taken  %q: %s\n", name, why)
			continue
		}
		id, there, err := addServer(ctx, st, user, args)
		switch {
		case err != nil:
			skipped++
			fmt.Fprintf(out, "not taken  %q: %s\n", name, wire.Sanitize(err.Error(), wire.MaxErrorMessage))
		case there:
			existing++
			fmt.Fprintf(out, "existing   %q: %s\n", name, id)
		default:
			added++
			note := ""
			if len(headersOf(e)) > 0 {
				note = " (its headers were not imported: the relay does not take secrets from a file)"
			}
			fmt.Fprintf(out, "added      %q: %s%s\n", name, id, note)
		}
	}
	fmt.Fprintf(out, "%d added, %d already registered, %d not taken\n", added, existing, skipped)
	return nil
}

// httpEntry returns the registration an entry asks for, or why it is not taken.
func httpEntry(e importEntry) (wire.AddServerArgs, string) {
	var d desktopServer
	if err := json.Unmarshal(e.Raw, &d); err != nil {
		return wire.AddServerArgs{}, "not an object with a url"
	}
	u := d.URL
	if u == "" {
		u = d.ServerURL
	}
	switch {
	case d.Command != "" && u == "":
		return wire.AddServerArgs{}, "a stdio server (it runs a local command); the relay starts no commands from a file: serve it over HTTP and add its URL"
	case u == "":
		return wire.AddServerArgs{}, "no url"
	}
	kind := d.Type
	if kind == "" {
		kind = d.Transport
	}
	var transport string
	switch strings.ToLower(strings.ReplaceAll(kind, "_", "-")) {
	case "", "http", "streamable-http", "streamablehttp":
		transport = wire.TransportStreamable
	case "sse":
		transport = wire.TransportSSE
	case "stdio":
		return wire.AddServerArgs{}, "a stdio server; the relay starts no commands from a file"
	default:
		return wire.AddServerArgs{}, fmt.Sprintf("unknown type %q (use http, streamable-http or sse)", wire.Sanitize(kind, 40))
	}
	return wire.AddServerArgs{Name: e.Name, URL: u, Transport: transport}, ""
}

func headersOf(e importEntry) map[string]string {
	var d desktopServer
	json.Unmarshal(e.Raw, &d)
	return d.Headers
}
