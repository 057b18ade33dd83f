package store

import (
	"errors"
	"fmt"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

var (
	errGap    = errors.New("delta out of sequence")
	errNoBase = errors.New("delta before a snapshot")
)

// applyDelta returns s with d applied, leaving s untouched: views may still
// hold s, and comparing it with the new state is how they see what changed.
// ApplyAll copies what it changes, so s keeps its own lists.
func applyDelta(s wire.Snapshot, d wire.Delta) (wire.Snapshot, error) {
	if err := s.ApplyAll(d.Changes); err != nil {
		return s, fmt.Errorf("apply delta: %w", err)
	}
	return s, nil
}
