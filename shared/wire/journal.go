package wire

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// A server's journal is what it reported besides its state: its log
// messages (notifications/message) and its other notifications (activity).
// Each is bounded: the relay keeps the last [MaxLogs] and [MaxActivity] of
// each server and counts what it dropped. A new line travels as one change.

// Bounds of a server's journal.
const (
	// MaxLogs is how many log messages the relay keeps per server.
	MaxLogs = 1000
	// MaxActivity is how many activity entries the relay keeps per server.
	MaxActivity = 1000
	// MaxLogData is the longest log message data kept, in bytes of JSON;
	// longer data is cut and kept as text.
	MaxLogData = 4096
	// MaxLogger is the longest logger name, in characters.
	MaxLogger = 100
	// MaxActivityText is the longest activity text, in characters.
	MaxActivityText = 300
)

// ActivityKind names the notification an [Activity] records.
type ActivityKind string

// Activity kinds.
const (
	ActivityToolsChanged     ActivityKind = "tools_changed"
	ActivityPromptsChanged   ActivityKind = "prompts_changed"
	ActivityResourcesChanged ActivityKind = "resources_changed"
	ActivityResourceUpdated  ActivityKind = "resource_updated"
	ActivityProgress         ActivityKind = "progress"
	ActivityCancelled        ActivityKind = "cancelled"
	ActivityElicitComplete   ActivityKind = "elicitation_complete"
	// ActivitySamplingForwarded: the person handed a sampling request to an
	// agent, which answered it (forward.go).
	ActivitySamplingForwarded ActivityKind = "sampling_forwarded"
)

// SetLogLevelArgs are the arguments of [OpSetLogLevel].
type SetLogLevelArgs struct {
	Server string   `json:"server"`
	Level  LogLevel `json:"level"` // one of LogLevels, or empty for none
}

// ServerID implements the relay's server-naming op arguments.
func (a SetLogLevelArgs) ServerID() string { return a.Server }

// Logging is a server's logging, present when the server declares the
// logging capability.
type Logging struct {
	Level LogLevel `json:"level,omitempty"` // the level asked for; empty when none
}

// LogEntry is one log message of a server. Data is the message's JSON as
// the server sent it, cut to [MaxLogData] (then a JSON string); the
// dashboard shows a string as text and anything else as a tree.
type LogEntry struct {
	N      uint64          `json:"n"` // numbers the server's entries from 1
	Time   time.Time       `json:"time"`
	Level  LogLevel        `json:"level"`
	Logger string          `json:"logger,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
}

// Activity is one notification of a server, in words.
type Activity struct {
	N    uint64       `json:"n"` // numbers the server's entries from 1
	Time time.Time    `json:"time"`
	Kind ActivityKind `json:"kind"` // one of the Activity kinds
	Text string       `json:"text,omitempty"`
}

// Journal is one server's logs and activity, newest last.
type Journal struct {
	Server          string     `json:"server"`
	Logs            []LogEntry `json:"logs,omitempty"`
	LogsDropped     uint64     `json:"logsDropped,omitempty"` // older entries the relay let go
	Activity        []Activity `json:"activity,omitempty"`
	ActivityDropped uint64     `json:"activityDropped,omitempty"`
}

// JournalOf returns the journal of server id, or nil.
func (s *Snapshot) JournalOf(id string) *Journal {
	if i := s.journalIndex(id); i >= 0 {
		return &s.Journals[i]
	}
	return nil
}

func (s *Snapshot) journalIndex(id string) int {
	return slices.IndexFunc(s.Journals, func(j Journal) bool { return j.Server == id })
}

// applyJournal folds a KindLog or KindActivity change into s. It replaces
// the journal's lists rather than editing them, so that an earlier view
// sharing them is left as it was.
func (s *Snapshot) applyJournal(c Change) error {
	if s.serverIndex(c.Server) < 0 {
		return fmt.Errorf("%s %q: unknown server %s", c.Kind, c.Key, c.Server)
	}
	i := s.journalIndex(c.Server)
	if i < 0 {
		s.Journals = append(s.Journals, Journal{Server: c.Server})
		i = len(s.Journals) - 1
	}
	j := &s.Journals[i]
	var err error
	switch c.Kind {
	case KindLog:
		j.Logs, j.LogsDropped, err = appendBounded(j.Logs, j.LogsDropped, c, MaxLogs, func(e LogEntry) uint64 { return e.N })
	case KindActivity:
		j.Activity, j.ActivityDropped, err = appendBounded(j.Activity, j.ActivityDropped, c, MaxActivity, func(a Activity) uint64 { return a.N })
	}
	return err
}

// appendBounded appends the change's item to items, dropping the oldest
// beyond bound, or clears them on a removal. An item numbered no higher than
// the last one is there already (a snapshot may hold entries whose change
// follows it) and is skipped.
func appendBounded[T any](items []T, dropped uint64, c Change, bound int, n func(T) uint64) ([]T, uint64, error) {
	if c.Remove {
		return nil, 0, nil
	}
	var v T
	if err := json.Unmarshal(c.Value, &v); err != nil {
		return items, dropped, fmt.Errorf("%s %q: %w", c.Kind, c.Key, err)
	}
	if len(items) > 0 && n(v) <= n(items[len(items)-1]) {
		return items, dropped, nil
	}
	if len(items) >= bound {
		cut := len(items) - bound + 1
		items, dropped = items[cut:], dropped+uint64(cut)
	}
	out := make([]T, len(items), len(items)+1)
	copy(out, items)
	return append(out, v), dropped, nil
}
