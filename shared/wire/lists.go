package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// The lists of a server (tools, prompts, resources, templates,
// subscriptions) are spelled out once, here: Apply, Diff, Meta and Deduped
// go through serverLists, so a new list or a new kind of change is one line.

// serverList is one list of a [Server], with its change kind.
type serverList struct {
	kind   ChangeKind
	clone  func(srv *Server) // gives srv its own copy of the list
	clear  func(srv *Server)
	keep   func(dst, src *Server) // dst takes src's list
	apply  func(srv *Server, c Change) error
	diff   func(changes []Change, server string, old, cur *Server) []Change
	dedupe func(srv *Server)
}

// serverLists are the lists of a server, in the order a diff lists them.
var serverLists = []serverList{
	listOf(KindTool, func(s *Server) *[]Tool { return &s.Tools }, func(t Tool) string { return t.Name }),
	listOf(KindPrompt, func(s *Server) *[]Prompt { return &s.Prompts }, func(p Prompt) string { return p.Name }),
	listOf(KindResource, func(s *Server) *[]Resource { return &s.Resources }, func(r Resource) string { return r.URI }),
	listOf(KindTemplate, func(s *Server) *[]ResourceTemplate { return &s.Templates }, func(t ResourceTemplate) string { return t.URITemplate }),
	listOf(KindSubscription, func(s *Server) *[]Subscription { return &s.Subscriptions }, func(s Subscription) string { return s.URI }),
}

// listFor returns the server list a change kind edits, or nil.
func listFor(kind ChangeKind) *serverList {
	for i := range serverLists {
		if serverLists[i].kind == kind {
			return &serverLists[i]
		}
	}
	return nil
}

// listOf describes the list field of a server whose items have key.
func listOf[T any](kind ChangeKind, field func(*Server) *[]T, key func(T) string) serverList {
	return serverList{
		kind:  kind,
		clone: func(srv *Server) { *field(srv) = slices.Clone(*field(srv)) },
		clear: func(srv *Server) { *field(srv) = nil },
		keep:  func(dst, src *Server) { *field(dst) = *field(src) },
		apply: func(srv *Server, c Change) error {
			items, err := applyItem(*field(srv), c, key)
			*field(srv) = items
			return err
		},
		diff: func(changes []Change, server string, old, cur *Server) []Change {
			return diffItems(changes, kind, server, *field(old), *field(cur), key)
		},
		dedupe: func(srv *Server) { *field(srv) = dedupe(*field(srv), key) },
	}
}

// applyItem puts or removes the change's item in items, in place: the
// caller owns items. A put of a new key goes to Change.At when it is set and
// within the list, else to the end.
func applyItem[T any](items []T, c Change, key func(T) string) ([]T, error) {
	at := slices.IndexFunc(items, func(it T) bool { return key(it) == c.Key })
	if c.Remove {
		if at >= 0 {
			items = slices.Delete(items, at, at+1)
		}
		return items, nil
	}
	var v T
	if err := json.Unmarshal(c.Value, &v); err != nil {
		return items, fmt.Errorf("%s %q: %w", c.Kind, c.Key, err)
	}
	switch {
	case at >= 0:
		items[at] = v
	case c.At != nil && *c.At >= 0 && *c.At <= len(items):
		items = slices.Insert(items, *c.At, v)
	default:
		items = append(items, v)
	}
	return items, nil
}

// diffItems appends to changes those that turn the list old into cur (each
// without repeated keys; see [Server.Deduped]), in order: removals first, then puts. An item that changed is put in its
// place; a new one is put at its index. When the items both lists hold are
// in another order in cur, those from the first out of order on are
// removed and put again at their index, so that the order comes out right.
func diffItems[T any](changes []Change, kind ChangeKind, server string, old, cur []T, key func(T) string) []Change {
	before := make(map[string][]byte, len(old))
	for _, it := range old {
		b, _ := json.Marshal(it) // wire list items always marshal
		before[key(it)] = b
	}
	inCur := make(map[string]bool, len(cur))
	var curKept []string // keys of cur also in old, in cur's order
	for _, it := range cur {
		k := key(it)
		inCur[k] = true
		if _, ok := before[k]; ok {
			curKept = append(curKept, k)
		}
	}
	var oldKept []string // keys of old also in cur, in old's order
	for _, it := range old {
		if k := key(it); inCur[k] {
			oldKept = append(oldKept, k)
		} else if before[k] != nil {
			changes = append(changes, Change{Kind: kind, Server: server, Key: k, Remove: true})
			before[k] = nil // a duplicate key is removed once
		}
	}
	again := map[string]bool{} // kept items removed to be put at their place
	for i, k := range oldKept {
		if curKept[i] != k {
			for _, k := range oldKept[i:] {
				again[k] = true
				changes = append(changes, Change{Kind: kind, Server: server, Key: k, Remove: true})
			}
			break
		}
	}
	for i, it := range cur {
		k := key(it)
		b, _ := json.Marshal(it)
		prev, kept := before[k]
		switch {
		case kept && !again[k] && bytes.Equal(prev, b):
			continue
		case kept && !again[k]:
			changes = append(changes, Change{Kind: kind, Server: server, Key: k, Value: b})
		default:
			at := i
			changes = append(changes, Change{Kind: kind, Server: server, Key: k, Value: b, At: &at})
		}
	}
	return changes
}

// dedupe drops items whose key repeats an earlier one. Without a repeat it
// returns items itself, so that a list is not held twice; with one, a new
// slice.
func dedupe[T any](items []T, key func(T) string) []T {
	seen := make(map[string]bool, len(items))
	for i, it := range items {
		if k := key(it); !seen[k] {
			seen[k] = true
			continue
		}
		out := slices.Clone(items[:i])
		for _, it := range items[i+1:] {
			if k := key(it); !seen[k] {
				seen[k] = true
				out = append(out, it)
			}
		}
		return out
	}
	return items
}
