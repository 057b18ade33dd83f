package store

import (
	"errors"
	"fmt"
	"slices"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

var (
	errGap    = errors.New("delta out of sequence")
	errNoBase = errors.New("delta before a snapshot")
)

// applyDelta returns s with d applied, leaving s untouched: views may still
// hold s, and comparing it with the new state is how they see what changed.
func applyDelta(s wire.Snapshot, d wire.Delta) (wire.Snapshot, error) {
	s.Servers = slices.Clone(s.Servers)
	s.Asks = slices.Clone(s.Asks)   // Apply edits asks in place, and a server's removal drops its asks
	s.Calls = slices.Clone(s.Calls) // likewise for calls
	// Apply replaces a journal's lists in place in this slice.
	s.Journals = slices.Clone(s.Journals)
	s.AgentCalls = slices.Clone(s.AgentCalls)
	type list struct {
		server string
		kind   wire.ChangeKind
	}
	cloned := map[list]bool{}
	for _, ch := range d.Changes {
		if ch.Kind != wire.KindServer {
			if srv := s.ServerByID(ch.Server); srv != nil && !cloned[list{ch.Server, ch.Kind}] {
				cloneList(srv, ch.Kind)
				cloned[list{ch.Server, ch.Kind}] = true
			}
		}
		if err := s.Apply(ch); err != nil {
			return s, fmt.Errorf("apply delta: %w", err)
		}
	}
	return s, nil
}

// cloneList gives srv its own copy of the list a change of kind edits.
func cloneList(srv *wire.Server, kind wire.ChangeKind) {
	switch kind {
	case wire.KindTool:
		srv.Tools = slices.Clone(srv.Tools)
	case wire.KindPrompt:
		srv.Prompts = slices.Clone(srv.Prompts)
	case wire.KindResource:
		srv.Resources = slices.Clone(srv.Resources)
	case wire.KindTemplate:
		srv.Templates = slices.Clone(srv.Templates)
	case wire.KindSubscription:
		srv.Subscriptions = slices.Clone(srv.Subscriptions)
	}
}
