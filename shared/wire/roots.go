package wire

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on a person's roots.
const (
	// MaxRoots is how many roots a person may keep.
	MaxRoots = 64
	// MaxRootURI is the longest root URI, in bytes.
	MaxRootURI = 2048
	// MaxRootName is the longest root name, in characters.
	MaxRootName = 100
)

// Root is one of the directories a person offers to their MCP servers
// (MCP roots): a file:// URI and an optional name.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// SetRootsArgs are the arguments of [OpSetRoots].
type SetRootsArgs struct {
	Roots []Root `json:"roots"`
}

// ExcludeRootsArgs are the arguments of [OpExcludeRoots].
type ExcludeRootsArgs struct {
	Server   string `json:"server"`
	Excluded bool   `json:"excluded"`
}

// ServerID implements the relay's server-naming op arguments.
func (a ExcludeRootsArgs) ServerID() string { return a.Server }

// CheckRoots validates a list of roots as [OpSetRoots] takes it: at most
// [MaxRoots], each a file:// URI with an absolute path and no query or
// fragment, no control characters, no URI twice. The error says which root
// is wrong and why, in words for a person.
func CheckRoots(roots []Root) error {
	if len(roots) > MaxRoots {
		return fmt.Errorf("at most %d roots are allowed, not %d", MaxRoots, len(roots))
	}
	seen := make(map[string]bool, len(roots))
	for i, r := range roots {
		if err := CheckRoot(r); err != nil {
			return fmt.Errorf("root %d: %w", i+1, err)
		}
		if seen[r.URI] {
			return fmt.Errorf("root %d: %s is listed twice", i+1, r.URI)
		}
		seen[r.URI] = true
	}
	return nil
}

// CheckRoot validates one root; see [CheckRoots].
func CheckRoot(r Root) error {
	switch {
	case r.URI == "":
		return fmt.Errorf("the URI is empty")
	case len(r.URI) > MaxRootURI:
		return fmt.Errorf("the URI is longer than %d bytes", MaxRootURI)
	case !utf8.ValidString(r.URI) || !utf8.ValidString(r.Name):
		return fmt.Errorf("the root is not valid UTF-8")
	case hasControl(r.URI):
		return fmt.Errorf("the URI contains control characters")
	case hasControl(r.Name):
		return fmt.Errorf("the name contains control characters")
	case utf8.RuneCountInString(r.Name) > MaxRootName:
		return fmt.Errorf("the name is longer than %d characters", MaxRootName)
	}
	u, err := url.Parse(r.URI)
	switch {
	case err != nil:
		return fmt.Errorf("the URI %q cannot be parsed", r.URI)
	case u.Scheme != "file":
		return fmt.Errorf("the URI must start with file:// (it is %q)", r.URI)
	case u.Host != "" && u.Host != "localhost":
		return fmt.Errorf("the URI must name a local path, as file:///path (not the host %q)", u.Host)
	case u.Opaque != "" || !strings.HasPrefix(u.Path, "/"):
		return fmt.Errorf("the path must be absolute, as file:///home/me/project")
	case u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(r.URI, "?#"):
		return fmt.Errorf("the URI must not have a query or a fragment")
	case hasControl(u.Path):
		return fmt.Errorf("the path contains control characters")
	}
	return nil
}

// hasControl reports whether s holds control or format characters.
func hasControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0
}

// applyRoots replaces the roots with the change's list.
func (s *Snapshot) applyRoots(c Change) error {
	var roots []Root
	if len(c.Value) > 0 {
		if err := json.Unmarshal(c.Value, &roots); err != nil {
			return fmt.Errorf("roots: %w", err)
		}
	}
	s.Roots = roots
	return nil
}
