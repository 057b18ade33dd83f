package wire

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Apply folds one change into the snapshot; see [Snapshot.ApplyAll].
func (s *Snapshot) Apply(c Change) error {
	return s.ApplyAll([]Change{c})
}

// ApplyAll folds changes, in order, into the snapshot. The dashboard's
// mirror and the relay's tests use it, so both sides agree on what a delta
// means. It copies what it changes, each list at most once per call, and
// never writes into an array the snapshot shared before: a copy of the
// snapshot taken earlier (a view of the dashboard) keeps the state it had.
// On an error the snapshot is left as it was.
func (s *Snapshot) ApplyAll(changes []Change) error {
	next := *s
	e := editor{s: &next, copied: map[copyKey]bool{}}
	for _, c := range changes {
		if err := e.apply(c); err != nil {
			return err
		}
	}
	*s = next
	return nil
}

// copyKey names a list of a snapshot that an editor copied.
type copyKey struct {
	server string     // "" for the snapshot's own lists
	kind   ChangeKind // the change kind whose list it is; "" for the servers
}

// editor applies changes to a snapshot whose lists it copies on first
// write.
type editor struct {
	s      *Snapshot
	copied map[copyKey]bool
}

// own copies the list named by k, once, with clone.
func (e *editor) own(k copyKey, clone func()) {
	if !e.copied[k] {
		clone()
		e.copied[k] = true
	}
}

func (e *editor) apply(c Change) error {
	s := e.s
	switch c.Kind {
	case KindAsk:
		e.own(copyKey{kind: KindAsk}, func() { s.Asks = slices.Clone(s.Asks) })
		var err error
		s.Asks, err = applyItem(s.Asks, c, func(a Ask) string { return a.ID })
		return err
	case KindRoots:
		return s.applyRoots(c)
	case KindCatalog:
		return s.applyCatalog(c)
	case KindLog, KindActivity:
		e.own(copyKey{kind: KindLog}, func() { s.Journals = slices.Clone(s.Journals) })
		return s.applyJournal(c)
	case KindAgentCall:
		e.own(copyKey{kind: KindAgentCall}, func() { s.AgentCalls = slices.Clone(s.AgentCalls) })
		var err error
		s.AgentCalls, err = applyItem(s.AgentCalls, c, func(a AgentCall) string { return a.ID })
		return err
	case KindCall:
		e.own(copyKey{kind: KindCall}, func() { s.Calls = slices.Clone(s.Calls) })
		var err error
		s.Calls, err = applyItem(s.Calls, c, func(call Call) string { return call.ID })
		return err
	case KindServer:
		return e.applyServer(c)
	case KindChat, KindChatTurn, KindChatText, KindChatPart, KindChatEnd:
		return e.applyChat(c)
	}
	l := listFor(c.Kind)
	if l == nil {
		return fmt.Errorf("unknown change kind %q", c.Kind)
	}
	i := s.serverIndex(c.Server)
	if i < 0 {
		return fmt.Errorf("%s %q: unknown server %s", c.Kind, c.Key, c.Server)
	}
	e.own(copyKey{}, func() { s.Servers = slices.Clone(s.Servers) })
	srv := &s.Servers[i]
	e.own(copyKey{server: c.Server, kind: c.Kind}, func() { l.clone(srv) })
	return l.apply(srv, c)
}

// applyServer puts a server's metadata (keeping its lists) or removes the
// server with everything of it.
func (e *editor) applyServer(c Change) error {
	s := e.s
	i := s.serverIndex(c.Server)
	if c.Remove {
		if i < 0 {
			return nil
		}
		s.Servers = slices.Concat(s.Servers[:i], s.Servers[i+1:]) // a new array
		e.copied[copyKey{}] = true
		for _, l := range serverLists {
			delete(e.copied, copyKey{server: c.Server, kind: l.kind})
		}
		s.Asks = slices.DeleteFunc(slices.Clone(s.Asks), func(a Ask) bool { return a.Server == c.Server })
		s.Calls = slices.DeleteFunc(slices.Clone(s.Calls), func(call Call) bool { return call.Server == c.Server })
		s.Journals = slices.DeleteFunc(slices.Clone(s.Journals), func(j Journal) bool { return j.Server == c.Server })
		e.copied[copyKey{kind: KindAsk}], e.copied[copyKey{kind: KindCall}], e.copied[copyKey{kind: KindLog}] = true, true, true
		return nil
	}
	var meta Server
	if err := json.Unmarshal(c.Value, &meta); err != nil {
		return fmt.Errorf("server %s: %w", c.Server, err)
	}
	meta = meta.Meta()
	e.own(copyKey{}, func() { s.Servers = slices.Clone(s.Servers) })
	switch {
	case i < 0 && c.At != nil && *c.At >= 0 && *c.At <= len(s.Servers):
		s.Servers = slices.Insert(s.Servers, *c.At, meta)
		return nil
	case i < 0:
		s.Servers = append(s.Servers, meta)
		return nil
	}
	for _, l := range serverLists {
		l.keep(&meta, &s.Servers[i])
	}
	s.Servers[i] = meta
	return nil
}

// ServerByID returns the server with the given id, or nil.
func (s *Snapshot) ServerByID(id string) *Server {
	if i := s.serverIndex(id); i >= 0 {
		return &s.Servers[i]
	}
	return nil
}

func (s *Snapshot) serverIndex(id string) int {
	for i := range s.Servers {
		if s.Servers[i].ID == id {
			return i
		}
	}
	return -1
}
