package mcpservers

import (
	"maps"
	"slices"
)

// StdioReason is why an importer does not take a stdio entry from a
// person's file: a relay starts commands only from its operator's
// configuration.
const StdioReason = "a stdio server (it runs a local command): the relay starts no command from an imported file; serve it over HTTP and add its URL, or ask the relay's operator to configure it"

// SplitHeaders splits an entry's headers into those with a value and the
// sorted names of those without one ([UnsetHeader]).
func SplitHeaders(all map[string]string) (set map[string]string, unset []string) {
	for _, name := range slices.Sorted(maps.Keys(all)) {
		if UnsetHeader(all[name]) {
			unset = append(unset, name)
			continue
		}
		if set == nil {
			set = map[string]string{}
		}
		set[name] = all[name]
	}
	return set, unset
}
