package wire

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Apply folds one change into the snapshot's servers and asks. The
// dashboard's mirror and the relay's tests use it, so both sides agree on
// what a delta means. It edits the snapshot's lists in place (a removed item
// leaves a new list behind, a replaced one does not): a caller that keeps
// an earlier view must copy the lists it shares first.
func (s *Snapshot) Apply(c Change) error {
	if c.Kind == KindAsk {
		var err error
		s.Asks, err = applyItem(s.Asks, c, func(a Ask) string { return a.ID })
		return err
	}
	switch c.Kind {
	case KindRoots:
		return s.applyRoots(c)
	case KindLog, KindActivity:
		return s.applyJournal(c)
	case KindAgentCall:
		var err error
		s.AgentCalls, err = applyItem(s.AgentCalls, c, func(a AgentCall) string { return a.ID })
		return err
	case KindCall:
		var err error
		s.Calls, err = applyItem(s.Calls, c, func(call Call) string { return call.ID })
		return err
	}
	i := s.serverIndex(c.Server)
	if c.Kind == KindServer {
		switch {
		case c.Remove && i >= 0:
			s.Servers = append(s.Servers[:i], s.Servers[i+1:]...)
			s.Asks = slices.DeleteFunc(s.Asks, func(a Ask) bool { return a.Server == c.Server })
			s.dropJournal(c.Server)
			s.Calls = slices.DeleteFunc(s.Calls, func(call Call) bool { return call.Server == c.Server })
		case c.Remove:
		default:
			var meta Server
			if err := json.Unmarshal(c.Value, &meta); err != nil {
				return fmt.Errorf("server %s: %w", c.Server, err)
			}
			if i < 0 {
				s.Servers = append(s.Servers, meta.Meta())
				return nil
			}
			old := s.Servers[i]
			meta.Tools, meta.Prompts, meta.Resources, meta.Templates = old.Tools, old.Prompts, old.Resources, old.Templates
			meta.Subscriptions = old.Subscriptions
			s.Servers[i] = meta
		}
		return nil
	}
	if i < 0 {
		return fmt.Errorf("%s %q: unknown server %s", c.Kind, c.Key, c.Server)
	}
	srv := &s.Servers[i]
	var err error
	switch c.Kind {
	case KindTool:
		srv.Tools, err = applyItem(srv.Tools, c, func(t Tool) string { return t.Name })
	case KindPrompt:
		srv.Prompts, err = applyItem(srv.Prompts, c, func(p Prompt) string { return p.Name })
	case KindResource:
		srv.Resources, err = applyItem(srv.Resources, c, func(r Resource) string { return r.URI })
	case KindTemplate:
		srv.Templates, err = applyItem(srv.Templates, c, func(t ResourceTemplate) string { return t.URITemplate })
	case KindSubscription:
		srv.Subscriptions, err = applyItem(srv.Subscriptions, c, func(s Subscription) string { return s.URI })
	default:
		err = fmt.Errorf("unknown change kind %q", c.Kind)
	}
	return err
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

func applyItem[T any](items []T, c Change, key func(T) string) ([]T, error) {
	at := -1
	for i, it := range items {
		if key(it) == c.Key {
			at = i
			break
		}
	}
	if c.Remove {
		if at >= 0 {
			items = append(items[:at:at], items[at+1:]...)
		}
		return items, nil
	}
	var v T
	if err := json.Unmarshal(c.Value, &v); err != nil {
		return items, fmt.Errorf("%s %q: %w", c.Kind, c.Key, err)
	}
	if at >= 0 {
		items[at] = v
	} else {
		items = append(items, v)
	}
	return items, nil
}
