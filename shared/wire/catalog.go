package wire

import (
	"encoding/json"
	"fmt"
)

// The catalog: servers the relay's operator offers to every user. A person
// adds one with [OpAddServer] naming its id in [AddServerArgs.Catalog]; the
// relay takes its URL, transport and credentials from its own copy, never
// from the browser.

// CatalogAuth says how a catalog server is authorized.
type CatalogAuth string

// Ways a catalog server is authorized.
const (
	CatalogAuthPerson  CatalogAuth = "person"  // each person authorizes (OAuth) with their own account
	CatalogAuthMachine CatalogAuth = "machine" // the relay uses the operator's credentials; nobody signs in
)

// Limits of the catalog.
const (
	// MaxCatalogEntries is how many servers a catalog may offer.
	MaxCatalogEntries = 256
	// MaxCatalogDescription is the longest description of an entry, in runes.
	MaxCatalogDescription = 500
)

// KindCatalog replaces the whole catalog: Server and Key are empty and
// Value is a JSON array of [CatalogEntry]. The catalog is short (at most
// [MaxCatalogEntries]) and changes as a whole when the operator edits
// the file, so a change carries all of it.
const KindCatalog ChangeKind = "catalog"

// CatalogEntry is one server of the catalog as a dashboard sees it: never
// the operator's credentials, and the URL with its secret query values
// masked, as a server's is.
type CatalogEntry struct {
	ID          string      `json:"id"`
	Name        string      `json:"name"`
	URL         string      `json:"url"`
	Transport   Transport   `json:"transport"`
	Description string      `json:"description,omitempty"`
	Auth        CatalogAuth `json:"auth"`
}

// applyCatalog replaces the snapshot's catalog with the change's.
func (s *Snapshot) applyCatalog(c Change) error {
	var entries []CatalogEntry
	if len(c.Value) > 0 {
		if err := json.Unmarshal(c.Value, &entries); err != nil {
			return fmt.Errorf("catalog: %w", err)
		}
	}
	s.Catalog = entries
	return nil
}
