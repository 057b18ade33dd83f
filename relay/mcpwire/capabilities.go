package mcpwire

import (
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// maxExperimental caps the experimental capability names shown.
const maxExperimental = 32

// serverCapabilities converts what a server declared, with tasks, the
// tasks capability the go-sdk does not decode.
func serverCapabilities(caps *mcp.ServerCapabilities, tasks *wire.TaskCapability) *wire.ServerCapabilities {
	out := &wire.ServerCapabilities{Tasks: tasks}
	if caps == nil {
		return out
	}
	if caps.Tools != nil {
		out.Tools = &wire.ListCapability{ListChanged: caps.Tools.ListChanged}
	}
	if caps.Prompts != nil {
		out.Prompts = &wire.ListCapability{ListChanged: caps.Prompts.ListChanged}
	}
	if caps.Resources != nil {
		out.Resources = &wire.ResourceCapability{Subscribe: caps.Resources.Subscribe, ListChanged: caps.Resources.ListChanged}
	}
	out.Logging = caps.Logging != nil
	out.Completions = caps.Completions != nil
	for _, name := range slices.Sorted(maps.Keys(caps.Experimental)) {
		if len(out.Experimental) == maxExperimental {
			break
		}
		if validKey(name, maxKeyRunes) {
			out.Experimental = append(out.Experimental, name)
		}
	}
	return out
}

// ClientCapabilities names the capabilities the relay advertised to a
// server (wire.ClientCap*); nil names none.
func ClientCapabilities(caps *mcp.ClientCapabilities) []wire.ClientCapability {
	var names []wire.ClientCapability
	if caps == nil {
		return nil
	}
	if caps.Elicitation != nil && caps.Elicitation.Form != nil {
		names = append(names, wire.ClientCapElicitationForm)
	}
	if caps.Elicitation != nil && caps.Elicitation.URL != nil {
		names = append(names, wire.ClientCapElicitationURL)
	}
	if caps.Sampling != nil {
		names = append(names, wire.ClientCapSampling)
		if caps.Sampling.Tools != nil {
			names = append(names, wire.ClientCapSamplingTools)
		}
	}
	if caps.RootsV2 != nil && caps.RootsV2.ListChanged {
		names = append(names, wire.ClientCapRoots)
	}
	return names
}
