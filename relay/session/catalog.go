package session

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/switchboard-mcp/switchboard/relay/catalog"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The operator's catalog: servers offered to every user. The manager holds
// one catalog for all sessions; each session shows it in its snapshot and
// publishes a [wire.KindCatalog] change when it is replaced. A person adds
// an entry with the add-server op naming it, and the relay fills in the
// server from its own copy, so a dashboard never sees (nor chooses) the
// entry's full URL or credentials.

// SetCatalog replaces the catalog and shows the new one in every dashboard.
func (m *Manager) SetCatalog(c catalog.Catalog) {
	m.catalogMu.Lock()
	m.catalog = c
	m.catalogMu.Unlock()
	b, _ := json.Marshal(c.Public()) // catalog entries always marshal
	m.mu.Lock()
	sessions := slices.Collect(maps.Values(m.sessions))
	m.mu.Unlock()
	for _, s := range sessions {
		s.mu.Lock()
		if !s.closed {
			s.publishLocked([]wire.Change{{Kind: wire.KindCatalog, Value: b}})
		}
		s.mu.Unlock()
	}
}

// publicCatalog is the catalog as dashboards see it.
func (m *Manager) publicCatalog() []wire.CatalogEntry {
	m.catalogMu.RLock()
	defer m.catalogMu.RUnlock()
	return m.catalog.Public()
}

// fromCatalog returns the arguments of adding the catalog entry args names:
// its name, full URL, transport and machine credentials. Arguments without
// a catalog id are returned as they are.
func (m *Manager) fromCatalog(args wire.AddServerArgs) (wire.AddServerArgs, error) {
	if args.Catalog == "" {
		return args, nil
	}
	if args.Name != "" || args.URL != "" || args.Transport != "" || args.ID != "" || len(args.Headers) > 0 || args.Retry != nil {
		return args, wire.NewError(wire.CodeBadRequest, "a server from the catalog is added by its catalog id alone")
	}
	m.catalogMu.RLock()
	e, ok := m.catalog.Lookup(args.Catalog)
	m.catalogMu.RUnlock()
	if !ok {
		return args, wire.NewError(wire.CodeNotFound, fmt.Sprintf("the catalog has no server %q (any more)", wire.Sanitize(args.Catalog, 80)))
	}
	return wire.AddServerArgs{Name: e.Name, URL: e.FullURL, Transport: e.Transport, Headers: maps.Clone(e.Headers)}, nil
}
