package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/shared/servercfg"
	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// MaxFileBytes is the largest catalog file the relay reads.
const MaxFileBytes = 1 << 20

// Catalog is a checked catalog, in the file's order.
type Catalog struct {
	Entries []Entry
}

// Entry is one server of the catalog with what the relay alone knows of
// it: its full URL and the values of its machine credentials.
type Entry struct {
	wire.CatalogEntry
	// FullURL is the normalized URL, secret query values included.
	FullURL string
	// Headers are sent on every request to the server (machine
	// credentials); their values are secrets.
	Headers map[string]string
}

// Lookup returns the entry of id.
func (c Catalog) Lookup(id string) (Entry, bool) {
	for _, e := range c.Entries {
		if e.ID == id {
			return e, true
		}
	}
	return Entry{}, false
}

// Public is the catalog as dashboards see it: no credentials.
func (c Catalog) Public() []wire.CatalogEntry {
	out := make([]wire.CatalogEntry, len(c.Entries))
	for i, e := range c.Entries {
		out[i] = e.CatalogEntry
	}
	return out
}

// fileEntry is one entry as the file spells it.
type fileEntry struct {
	ID          string                `json:"id"`
	Name        string                `json:"name"`
	URL         string                `json:"url"`
	Transport   string                `json:"transport"`
	Description string                `json:"description"`
	Auth        string                `json:"auth"`
	Headers     map[string]secretFrom `json:"headers"`
	Command     json.RawMessage       `json:"command"` // refused with a pointer to the stdio file
}

// secretFrom names where a secret is read: an environment variable or a
// file (relative to the catalog's directory), with an optional prefix such
// as "Bearer ".
type secretFrom struct {
	Env    string `json:"env"`
	File   string `json:"file"`
	Prefix string `json:"prefix"`
}

// Env reads environment variables; os.LookupEnv in the relay.
type Env func(name string) (string, bool)

// Load reads and checks the catalog file at path. It returns the file's
// content too, for [Watch].
func Load(path string, env Env) (Catalog, []byte, error) {
	b, err := readFile(path)
	if err != nil {
		return Catalog{}, nil, err
	}
	c, err := Parse(b, filepath.Dir(path), env)
	return c, b, err
}

// readFile reads path, refusing a file larger than MaxFileBytes.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", path, err)
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("catalog %s: larger than %d bytes", path, MaxFileBytes)
	}
	return b, nil
}

// Parse checks a catalog file's content. dir is where relative secret
// files are; env reads the environment. Any entry it cannot take fails the
// whole catalog, with a reason naming the entry.
func Parse(b []byte, dir string, env Env) (Catalog, error) {
	var doc struct {
		Servers []fileEntry `json:"servers"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return Catalog{}, fmt.Errorf(`catalog: not a JSON object {"servers": [...]} of known fields: %w`, err)
	}
	if len(doc.Servers) > wire.MaxCatalogEntries {
		return Catalog{}, fmt.Errorf("catalog: %d servers, more than %d", len(doc.Servers), wire.MaxCatalogEntries)
	}
	var c Catalog
	ids, names := map[string]int{}, map[string]int{}
	for i, fe := range doc.Servers {
		e, err := checkEntry(fe, dir, env)
		if err != nil {
			return Catalog{}, fmt.Errorf("catalog: server %d (%s): %w", i+1, label(fe), err)
		}
		if j, ok := ids[e.ID]; ok {
			return Catalog{}, fmt.Errorf("catalog: server %d (%s): the id %q is also server %d's", i+1, label(fe), e.ID, j)
		}
		if j, ok := names[strings.ToLower(e.Name)]; ok {
			return Catalog{}, fmt.Errorf("catalog: server %d (%s): the name is also server %d's", i+1, label(fe), j)
		}
		ids[e.ID], names[strings.ToLower(e.Name)] = i+1, i+1
		c.Entries = append(c.Entries, e)
	}
	return c, nil
}

// label names an entry in an error: its name, sanitized.
func label(fe fileEntry) string {
	if n := strings.TrimSpace(fe.Name); n != "" {
		return fmt.Sprintf("%q", wire.Sanitize(n, wire.MaxServerName))
	}
	return "no name"
}

// checkEntry checks one entry and reads its secrets.
func checkEntry(fe fileEntry, dir string, env Env) (Entry, error) {
	if len(fe.Command) > 0 {
		return Entry{}, errors.New("has a command: the catalog offers HTTP servers; stdio servers are configured with --stdio-config and every user has them")
	}
	name := strings.TrimSpace(fe.Name)
	if err := checkText("name", name, wire.MaxServerName); err != nil {
		return Entry{}, err
	}
	if name == "" {
		return Entry{}, errors.New("no name")
	}
	desc := strings.TrimSpace(fe.Description)
	if err := checkText("description", desc, wire.MaxCatalogDescription); err != nil {
		return Entry{}, err
	}
	rawID := fe.ID
	if strings.TrimSpace(rawID) == "" {
		rawID = name
	}
	id, err := servercfg.NormalizeID(rawID)
	if err != nil {
		return Entry{}, fmt.Errorf("id: %w", err)
	}
	full, err := urlnorm.Normalize(fe.URL)
	if err != nil {
		return Entry{}, fmt.Errorf("url: %w", err)
	}
	shown := full
	if masked, ok := servercfg.MaskURL(full); ok {
		shown = masked
	}
	transport, err := checkTransport(fe.Transport)
	if err != nil {
		return Entry{}, err
	}
	auth := wire.CatalogAuth(fe.Auth)
	switch auth {
	case wire.CatalogAuthPerson:
		if len(fe.Headers) > 0 {
			return Entry{}, errors.New(`has headers but auth "person": headers are machine credentials, for auth "machine"`)
		}
	case wire.CatalogAuthMachine:
		if len(fe.Headers) == 0 {
			return Entry{}, errors.New(`auth "machine" needs headers: the credentials the relay sends, each read from "env" or "file"`)
		}
	case "":
		return Entry{}, errors.New(`no auth: say "person" (each person authorizes) or "machine" (the relay sends the operator's headers)`)
	default:
		return Entry{}, fmt.Errorf(`unknown auth %q: "person" or "machine"`, wire.Sanitize(fe.Auth, 40))
	}
	headers, err := readHeaders(fe.Headers, dir, env)
	if err != nil {
		return Entry{}, err
	}
	return Entry{
		CatalogEntry: wire.CatalogEntry{ID: id, Name: name, URL: shown, Transport: transport, Description: desc, Auth: auth},
		FullURL:      full,
		Headers:      headers,
	}, nil
}

// checkTransport takes the transports a person may choose; empty is auto.
func checkTransport(t string) (wire.Transport, error) {
	switch tr := wire.Transport(t); tr {
	case "":
		return wire.TransportAuto, nil
	case wire.TransportStreamable, wire.TransportSSE, wire.TransportAuto:
		return tr, nil
	case wire.TransportStdio:
		return "", errors.New("transport stdio: the catalog offers HTTP servers; stdio servers are configured with --stdio-config")
	default:
		return "", fmt.Errorf(`unknown transport %q: "streamable-http", "sse" or "auto"`, wire.Sanitize(t, 40))
	}
}

// checkText refuses text that is not UTF-8, too long or has control characters.
func checkText(what, s string, max int) error {
	switch {
	case !utf8.ValidString(s):
		return fmt.Errorf("%s is not UTF-8", what)
	case utf8.RuneCountInString(s) > max:
		return fmt.Errorf("%s longer than %d characters", what, max)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return fmt.Errorf("%s has control characters", what)
	}
	return nil
}

// readHeaders reads each header's value from where it is named. Errors name
// the header and the variable or file, never a value.
func readHeaders(refs map[string]secretFrom, dir string, env Env) (map[string]string, error) {
	if len(refs) > servercfg.MaxHeaders {
		return nil, fmt.Errorf("more than %d headers", servercfg.MaxHeaders)
	}
	out := map[string]string{}
	for name, ref := range refs {
		var value string
		switch {
		case ref.Env != "" && ref.File != "", ref.Env == "" && ref.File == "":
			return nil, fmt.Errorf("header %q: name its value with exactly one of \"env\" and \"file\"", wire.Sanitize(name, 80))
		case ref.Env != "":
			v, ok := env(ref.Env)
			if !ok || v == "" {
				return nil, fmt.Errorf("header %q: the environment variable %s is not set", wire.Sanitize(name, 80), ref.Env)
			}
			value = v
		default:
			path := ref.File
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("header %q: %w", wire.Sanitize(name, 80), err)
			}
			value = strings.TrimSpace(string(b))
			if value == "" {
				return nil, fmt.Errorf("header %q: the file %s is empty", wire.Sanitize(name, 80), path)
			}
		}
		value = ref.Prefix + value
		if err := servercfg.CheckHeader(name, value); err != nil {
			return nil, fmt.Errorf("header %q: %w", wire.Sanitize(name, 80), err)
		}
		out[servercfg.CanonicalHeader(name)] = value
	}
	return out, nil
}
