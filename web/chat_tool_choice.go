package web

import (
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// toolChoice is the tools a conversation offers its model, as the wire
// says it: whole servers and single tools of others; neither offers every
// ready server's tools.
type toolChoice struct {
	Servers []string
	Tools   []wire.ToolRef
}

// choiceOf is the choice of conversation c.
func choiceOf(c wire.Chat) toolChoice { return toolChoice{Servers: c.Servers, Tools: c.Tools} }

// all reports whether every ready server is offered.
func (c toolChoice) all() bool { return len(c.Servers) == 0 && len(c.Tools) == 0 }

// hasServer reports whether every tool of server id is offered.
func (c toolChoice) hasServer(id string) bool { return c.all() || slices.Contains(c.Servers, id) }

// hasTool reports whether tool ref is offered.
func (c toolChoice) hasTool(ref wire.ToolRef) bool {
	return c.hasServer(ref.Server) || slices.Contains(c.Tools, ref)
}

// explicit turns "every server" into the list of servers, so that one can
// be taken out.
func (c toolChoice) explicit(servers []wire.Server) toolChoice {
	if !c.all() {
		return toolChoice{Servers: slices.Clone(c.Servers), Tools: slices.Clone(c.Tools)}
	}
	ids := make([]string, len(servers))
	for i, s := range servers {
		ids[i] = s.ID
	}
	return toolChoice{Servers: ids}
}

// withServer returns the choice with every tool of server id offered (on)
// or none of them.
func (c toolChoice) withServer(servers []wire.Server, id string, on bool) toolChoice {
	out := c.explicit(servers)
	out.Servers = slices.DeleteFunc(out.Servers, func(s string) bool { return s == id })
	out.Tools = slices.DeleteFunc(out.Tools, func(r wire.ToolRef) bool { return r.Server == id })
	if on {
		out.Servers = append(out.Servers, id)
	}
	return out
}

// withTool returns the choice with tool ref offered (on) or not. Taking a
// tool out of a whole server offers that server's other tools one by one.
func (c toolChoice) withTool(servers []wire.Server, ref wire.ToolRef, on bool) toolChoice {
	out := c.explicit(servers)
	if slices.Contains(out.Servers, ref.Server) {
		if on {
			return out
		}
		out.Servers = slices.DeleteFunc(out.Servers, func(s string) bool { return s == ref.Server })
		for _, s := range servers {
			if s.ID != ref.Server {
				continue
			}
			for _, t := range s.Tools {
				if t.Name != ref.Tool {
					out.Tools = append(out.Tools, wire.ToolRef{Server: s.ID, Tool: t.Name})
				}
			}
		}
		return out
	}
	out.Tools = slices.DeleteFunc(out.Tools, func(r wire.ToolRef) bool { return r == ref })
	if on {
		out.Tools = append(out.Tools, ref)
	}
	return out
}

// summary says in a few words what is offered.
func (c toolChoice) summary(servers []wire.Server) string {
	if c.all() {
		return "all ready servers"
	}
	names := make([]string, len(c.Servers))
	for i, id := range c.Servers {
		names[i] = serverName(servers, id)
	}
	s := strings.Join(names, ", ")
	switch n := len(c.Tools); {
	case n == 0:
	case s == "" && n == 1:
		s = c.Tools[0].Tool + " (" + serverName(servers, c.Tools[0].Server) + ")"
	case s == "":
		s = itoa(n) + " tools"
	case n == 1:
		s += " + 1 tool"
	default:
		s += " + " + itoa(n) + " tools"
	}
	return s
}
