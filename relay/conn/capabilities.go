package conn

import (
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// maxExperimental caps the experimental capability names shown.
const maxExperimental = 32

// serverCapabilities converts what a server declared, with the tasks
// capability the go-sdk does not decode taken from the read-along.
func (c *Conn) serverCapabilities(caps *mcp.ServerCapabilities) *wire.ServerCapabilities {
	out := &wire.ServerCapabilities{}
	if t := c.ra.Tasks.Capability(); t != nil {
		out.Tasks = &wire.TaskCapability{List: t.List, Cancel: t.Cancel, ToolCall: t.ToolCall}
	}
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

// clientCapabilityNames names the capabilities the relay advertises.
func clientCapabilityNames(caps *mcp.ClientCapabilities) []string {
	var names []string
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

// markTaskSupport notes each tool's task support, and why a tool that
// requires tasks cannot be called when the server declared no task support
// for tools/call.
func (c *Conn) markTaskSupport(tools []wire.Tool) {
	declared := c.ra.Tasks.ToolCalls()
	for i := range tools {
		support := c.ra.Tasks.Support(tools[i].Name)
		switch support {
		case wire.TaskSupportRequired, wire.TaskSupportOptional, wire.TaskSupportForbidden:
			tools[i].TaskSupport = support
		}
		if support == wire.TaskSupportRequired && !declared {
			tools[i].Uncallable = uncallableNoTasks
		}
	}
}

// declared returns the capabilities the server of s declared.
func declared(s *session) *mcp.ServerCapabilities {
	if init := s.cs.InitializeResult(); init != nil && init.Capabilities != nil {
		return init.Capabilities
	}
	return &mcp.ServerCapabilities{}
}
