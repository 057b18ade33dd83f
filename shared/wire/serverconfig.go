package wire

import "encoding/json"

// Server configuration: how a person adds, edits, connects, disconnects,
// imports and exports servers.

// AddServerArgs are the arguments of [OpAddServer].
type AddServerArgs struct {
	Name      string    `json:"name"`
	URL       string    `json:"url"`
	Transport Transport `json:"transport,omitempty"` // TransportStreamable (default), TransportSSE or TransportAuto
	// ID is a caller-chosen id (normalized by the relay); empty for a generated one.
	ID string `json:"id,omitempty"`
	// Headers are sent upstream on every request; their values are secrets.
	Headers map[string]string `json:"headers,omitempty"`
	Retry   *Retry            `json:"retry,omitempty"`
	// Catalog names an entry of the operator's catalog ([CatalogEntry.ID]):
	// the relay takes the server's name, URL, transport and credentials
	// from it, and the other fields must be empty.
	Catalog string `json:"catalog,omitempty"`
}

// AddServerResult is the result of [OpAddServer]. Existing is set when a
// server with the same name and normalized URL was already registered.
type AddServerResult struct {
	ID       string `json:"id"`
	Existing bool   `json:"existing,omitempty"`
}

// ServerArgs name one server.
type ServerArgs struct {
	Server string `json:"server"`
}

// Retry is a server's reconnect policy. Zero fields take the relay's defaults.
type Retry struct {
	Attempts    int `json:"attempts,omitempty"`    // failed attempts in a row before giving up
	BaseDelayMS int `json:"baseDelayMs,omitempty"` // first delay, doubled on each failure
	MaxDelayMS  int `json:"maxDelayMs,omitempty"`  // cap on the delay
}

// UpdateServerArgs are the arguments of [OpUpdateServer]. Nil fields are left
// as they are. Headers maps a header name to its new value; an empty value
// deletes the header; names not mentioned are kept.
type UpdateServerArgs struct {
	Server    string            `json:"server"`
	Name      *string           `json:"name,omitempty"`
	URL       *string           `json:"url,omitempty"`
	Transport *Transport        `json:"transport,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
	Retry     *Retry            `json:"retry,omitempty"`
}

// SetServerConnectedArgs are the arguments of [OpSetServerConnected].
type SetServerConnectedArgs struct {
	Server    string `json:"server"`
	Connected bool   `json:"connected"`
}

// ImportServersArgs are the arguments of [OpImportServers]: the document as
// a desktop MCP client writes it ({"mcpServers": {name: entry}}).
type ImportServersArgs struct {
	Document json.RawMessage `json:"document"`
}

// ImportServersResult reports each entry of an import.
type ImportServersResult struct {
	Added   []ImportedServer `json:"added,omitempty"`
	Skipped []SkippedServer  `json:"skipped,omitempty"`
}

// ImportedServer is an entry an import added (or found already there).
type ImportedServer struct {
	Name     string `json:"name"`
	ID       string `json:"id"`
	Existing bool   `json:"existing,omitempty"`
	// Note says what of the entry was not taken (headers without a value).
	Note string `json:"note,omitempty"`
}

// SkippedServer is an entry an import could not take, and why.
type SkippedServer struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// ServerID returns the server the arguments name.
func (a UpdateServerArgs) ServerID() string { return a.Server }

// ServerID returns the server the arguments name.
func (a SetServerConnectedArgs) ServerID() string { return a.Server }

// ServerID returns the server the arguments name.
func (a ServerArgs) ServerID() string { return a.Server }
