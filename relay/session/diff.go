package session

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// diffServer returns the changes that turn old into cur: a server change if
// anything but the lists differs, and one change per item added, changed or
// removed in each list. Unchanged items send nothing.
func diffServer(old, cur wire.Server) []wire.Change {
	var changes []wire.Change
	if !reflect.DeepEqual(old.Meta(), cur.Meta()) {
		changes = append(changes, serverChange(cur))
	}
	id := cur.ID
	changes = diffItems(changes, wire.KindTool, id, old.Tools, cur.Tools, func(t wire.Tool) string { return t.Name })
	changes = diffItems(changes, wire.KindPrompt, id, old.Prompts, cur.Prompts, func(p wire.Prompt) string { return p.Name })
	changes = diffItems(changes, wire.KindResource, id, old.Resources, cur.Resources, func(r wire.Resource) string { return r.URI })
	changes = diffItems(changes, wire.KindTemplate, id, old.Templates, cur.Templates, func(t wire.ResourceTemplate) string { return t.URITemplate })
	changes = diffItems(changes, wire.KindSubscription, id, old.Subscriptions, cur.Subscriptions, func(s wire.Subscription) string { return s.URI })
	return changes
}

func diffItems[T any](changes []wire.Change, kind wire.ChangeKind, server string, old, cur []T, key func(T) string) []wire.Change {
	before := make(map[string][]byte, len(old))
	for _, it := range old {
		b, _ := json.Marshal(it) // wire list items always marshal
		before[key(it)] = b
	}
	seen := make(map[string]bool, len(cur))
	for _, it := range cur {
		k := key(it)
		seen[k] = true
		b, _ := json.Marshal(it)
		if prev, ok := before[k]; ok && bytes.Equal(prev, b) {
			continue
		}
		changes = append(changes, wire.Change{Kind: kind, Server: server, Key: k, Value: b})
	}
	for _, it := range old {
		if k := key(it); !seen[k] {
			changes = append(changes, wire.Change{Kind: kind, Server: server, Key: k, Remove: true})
			seen[k] = true
		}
	}
	return changes
}

// dedupeLists drops items whose key repeats an earlier one in the same list,
// so that a sloppy server cannot make the snapshot and the deltas disagree.
func dedupeLists(st *wire.Server) {
	st.Tools = dedupe(st.Tools, func(t wire.Tool) string { return t.Name })
	st.Prompts = dedupe(st.Prompts, func(p wire.Prompt) string { return p.Name })
	st.Resources = dedupe(st.Resources, func(r wire.Resource) string { return r.URI })
	st.Templates = dedupe(st.Templates, func(t wire.ResourceTemplate) string { return t.URITemplate })
	st.Subscriptions = dedupe(st.Subscriptions, func(s wire.Subscription) string { return s.URI })
}

func dedupe[T any](items []T, key func(T) string) []T {
	seen := make(map[string]bool, len(items))
	out := items[:0:0]
	for _, it := range items {
		if k := key(it); !seen[k] {
			seen[k] = true
			out = append(out, it)
		}
	}
	return out
}
