package conn

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// convertCapabilities converts what a server declared at initialization;
// a server that declared nothing has empty capabilities, not nil ones.
func convertCapabilities(caps *mcp.ServerCapabilities) *wire.Capabilities {
	out := &wire.Capabilities{}
	if caps == nil {
		return out
	}
	if p := caps.Prompts; p != nil {
		out.Prompts = &wire.ListCapability{ListChanged: p.ListChanged}
	}
	if r := caps.Resources; r != nil {
		out.Resources = &wire.ResourcesCapability{ListChanged: r.ListChanged, Subscribe: r.Subscribe}
	}
	if t := caps.Tools; t != nil {
		out.Tools = &wire.ListCapability{ListChanged: t.ListChanged}
	}
	out.Logging = caps.Logging != nil
	out.Completions = caps.Completions != nil
	return out
}

// declared returns the capabilities the server of s declared.
func declared(s *session) *mcp.ServerCapabilities {
	if init := s.cs.InitializeResult(); init != nil && init.Capabilities != nil {
		return init.Capabilities
	}
	return &mcp.ServerCapabilities{}
}
