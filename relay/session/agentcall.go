package session

import (
	"context"
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// CallTool calls tool on the user's server id for an agent, on the same
// connection the dashboard uses: a question the server asks meanwhile is
// asked in the user's dashboards. asked reports whether the server raised
// any question while the call ran (a concurrent call to the same server may
// have raised it).
func (s *Session) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (res *wire.CallToolResult, asked bool, err error) {
	c, err := s.connection(server)
	if err != nil {
		return nil, false, err
	}
	before := s.askedBy(server)
	r, err := c.CallTool(ctx, tool, args, nil)
	asked = s.askedBy(server) > before
	if err != nil {
		return nil, asked, err
	}
	return r, asked, nil
}

// askedBy is how many asks server id raised so far.
func (s *Session) askedBy(id string) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.servers[id]; ok {
		return e.asked
	}
	return 0
}
