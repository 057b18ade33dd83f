package mcpservers

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// SecretPlaceholder stands for a header value in an export: the relay never
// gives a secret back. [Parse] callers treat a header with this value (or an
// empty one) as one still to be set.
const SecretPlaceholder = "<secret not exported: set it again>"

// exportNote is the export's top-level note; desktop clients ignore keys
// they do not know.
const exportNote = "Exported by Switchboard. Header values are secrets and were not exported: " +
	"each reads " + SecretPlaceholder + ". Query parameters that carry secrets were left out of the URLs."

// document is the "mcpServers" layout as written.
type document struct {
	Note       string                 `json:"_note"`
	MCPServers map[string]exportEntry `json:"mcpServers"`
}

type exportEntry struct {
	Type    string            `json:"type,omitempty"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Export writes servers in the "mcpServers" layout: name, type, URL (without
// query parameters that carry secrets) and the names of their headers, each
// with [SecretPlaceholder] for a value. Servers of the operator's
// configuration (Configured) are not the person's and are left out.
func Export(servers []wire.Server) ([]byte, error) {
	doc := document{Note: exportNote, MCPServers: map[string]exportEntry{}}
	for _, s := range servers {
		if s.Configured || s.Transport == wire.TransportStdio {
			continue
		}
		e := exportEntry{URL: withoutSecrets(s.URL)}
		switch s.Transport {
		case wire.TransportSSE:
			e.Type = "sse"
		case wire.TransportStreamable:
			e.Type = "http"
		}
		if len(s.HeaderNames) > 0 {
			e.Headers = make(map[string]string, len(s.HeaderNames))
			for _, h := range s.HeaderNames {
				e.Headers[h] = SecretPlaceholder
			}
		}
		doc.MCPServers[s.Name] = e
	}
	return json.MarshalIndent(doc, "", "  ")
}

// UnsetHeader reports whether an imported header value is not a value: empty
// or the placeholder of an export.
func UnsetHeader(value string) bool {
	return strings.TrimSpace(value) == "" || value == SecretPlaceholder
}

// secretWords are parts of query parameter names that carry secrets.
var secretWords = []string{"key", "token", "secret", "password", "passwd", "auth", "sig", "credential", "session"}

// withoutSecrets drops the query parameters of raw that carry a secret: the
// ones whose value the relay masked and the ones whose name says so.
func withoutSecrets(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery == "" {
		return raw
	}
	q := u.Query()
	for name, values := range q {
		lower := strings.ToLower(name)
		masked := slices.ContainsFunc(values, func(v string) bool { return strings.ContainsAny(v, "•*") })
		if masked || slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(lower, w) }) {
			q.Del(name)
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}
