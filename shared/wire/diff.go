package wire

import (
	"encoding/json"
	"reflect"
)

// Diff returns the changes that turn the servers old into cur: the removal
// of each server cur lacks, then for each server of cur the changes of
// [DiffServer], from nothing for a new one, whose server change carries its
// index. Servers both hold that come in another order in cur are removed
// and put again from the first out of order on (the relay only appends
// servers, so that does not happen between its states). Applied to a
// snapshot holding old, the changes leave it holding cur.
func Diff(old, cur []Server) []Change {
	var changes []Change
	byID := make(map[string]*Server, len(old))
	for i := range old {
		byID[old[i].ID] = &old[i]
	}
	inCur := make(map[string]bool, len(cur))
	var curKept []string
	for _, s := range cur {
		inCur[s.ID] = true
		if byID[s.ID] != nil {
			curKept = append(curKept, s.ID)
		}
	}
	var oldKept []string
	for _, s := range old {
		if inCur[s.ID] {
			oldKept = append(oldKept, s.ID)
		} else {
			changes = append(changes, Change{Kind: KindServer, Server: s.ID, Key: s.ID, Remove: true})
		}
	}
	for i, id := range oldKept {
		if curKept[i] != id {
			for _, id := range oldKept[i:] {
				delete(byID, id)
				changes = append(changes, Change{Kind: KindServer, Server: id, Key: id, Remove: true})
			}
			break
		}
	}
	for i, s := range cur {
		prev, ok := byID[s.ID]
		if ok {
			changes = append(changes, DiffServer(*prev, s)...)
			continue
		}
		added := DiffServer(Server{}, s)
		at := i
		added[0].At = &at // the server change comes first
		changes = append(changes, added...)
	}
	return changes
}

// DiffServer returns the changes that turn old into cur, two states of one
// server: a server change if anything but the lists differs, and for each
// list the removals, changed items and new items (see diffItems). Items
// that did not change send nothing. The lists must not repeat a key
// ([Server.Deduped]).
func DiffServer(old, cur Server) []Change {
	var changes []Change
	if !reflect.DeepEqual(old.Meta(), cur.Meta()) || old.ID == "" {
		b, _ := json.Marshal(cur.Meta()) // a Server always marshals
		changes = append(changes, Change{Kind: KindServer, Server: cur.ID, Key: cur.ID, Value: b})
	}
	for _, l := range serverLists {
		changes = l.diff(changes, cur.ID, &old, &cur)
	}
	return changes
}

// Deduped returns s with each list's items whose key repeats an earlier one
// dropped, so that a sloppy server cannot make a snapshot and the deltas
// disagree.
func (s Server) Deduped() Server {
	for _, l := range serverLists {
		l.dedupe(&s)
	}
	return s
}
