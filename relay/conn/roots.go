package conn

import (
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Roots: the connection advertises the roots capability with list changes
// to every server, and answers roots/list (or a 2026-07-28 input request
// for roots) with the roots it holds. Config.Roots is the first list;
// [Conn.SetRoots] replaces it and notifies the live session.

// rootsCapability is the roots capability the relay advertises.
func rootsCapability() *mcp.RootCapabilities { return &mcp.RootCapabilities{ListChanged: true} }

// rootSet is the roots a connection offers now.
type rootSet struct {
	uris []string // the URIs given to the go-sdk client, in order
}

// SetRoots replaces the roots offered to the server. When they differ from
// the current ones, the live session gets notifications/roots/list_changed
// (one when roots were only added or only removed, two when both). The
// caller has validated roots ([wire.CheckRoots]). The go-sdk lists roots in
// the order of their URIs, not in the order given.
func (c *Conn) SetRoots(roots []wire.Root) {
	c.rootsMu.Lock()
	defer c.rootsMu.Unlock()
	if slices.Equal(c.rootList, roots) {
		return
	}
	uris := make([]string, len(roots))
	for i, r := range roots {
		uris[i] = r.URI
	}
	var gone []string
	for _, u := range c.roots.uris {
		if !slices.Contains(uris, u) {
			gone = append(gone, u)
		}
	}
	if len(gone) > 0 {
		c.client.RemoveRoots(gone...)
	}
	if added := changedRoots(c.rootList, roots); len(added) > 0 {
		c.client.AddRoots(added...)
	}
	c.roots.uris, c.rootList = uris, slices.Clone(roots)
}

// changedRoots returns the roots of cur that old does not hold as they are.
func changedRoots(old, cur []wire.Root) []*mcp.Root {
	var out []*mcp.Root
	for _, r := range cur {
		if !slices.Contains(old, r) {
			out = append(out, &mcp.Root{URI: r.URI, Name: r.Name})
		}
	}
	return out
}
