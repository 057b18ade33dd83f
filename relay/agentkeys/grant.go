package agentkeys

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Grant is what an agent key (or an OAuth grant of relay/agentauth)
// allows: whose servers, which of them, which tools, until when. The agent
// endpoint checks it on every request, so a grant narrowed or revoked takes
// effect within a live MCP session.
type Grant struct {
	User  string // the person whose servers the key reaches
	Agent string // the agent's name, shown on the asks it raises
	KeyID string // the key's id (never the key itself)
	// Servers are the server ids the key may use; nil means all.
	Servers []string
	// Tools are the tools the key may call, as the aggregate endpoint
	// exposes them ("<server>__<tool>", see relay/gateway) or by their own
	// names; nil means all.
	Tools   []string
	Expires time.Time // zero: no expiry
	// ForwardSampling: a sampling request raised during the agent's call
	// may be handed, on the person's click, to the agent's own client when
	// it declares sampling.
	ForwardSampling bool
	// ToolMode is how the aggregate endpoint shows the tools to the key's
	// agents; empty (an OAuth grant's) is wire.ToolModeTools.
	ToolMode wire.ToolMode
	// Resource is the endpoint URL an OAuth grant's tokens are bound to;
	// empty for keys, which reach both endpoints.
	Resource string
}

// Authenticator turns the bearer token of a request into the grant of its
// key. It returns [ErrUnauthorized] (or any error) for an unknown, revoked
// or expired key.
type Authenticator interface {
	Authenticate(ctx context.Context, bearer string) (Grant, error)
}

// ErrUnauthorized is every refusal of a bearer credential. Its message does
// not say which check failed, so that a guesser learns nothing.
var ErrUnauthorized = errors.New("invalid, expired or revoked agent key")

// AllowsServer reports whether g reaches server id.
func (g Grant) AllowsServer(id string) bool {
	return g.Servers == nil || slices.Contains(g.Servers, id)
}

// AllowsTool reports whether g may call the tool own of server, exposed
// to agents as exposed: the allow-list names it either way.
func (g Grant) AllowsTool(server, own, exposed string) bool {
	return g.AllowsServer(server) && (g.Tools == nil || slices.Contains(g.Tools, exposed) || slices.Contains(g.Tools, own))
}

// Expired reports whether g is past its expiry at now.
func (g Grant) Expired(now time.Time) bool {
	return !g.Expires.IsZero() && !now.Before(g.Expires)
}

// SameScope reports whether g and o allow the same things.
func (g Grant) SameScope(o Grant) bool {
	return g.User == o.User && slices.Equal(g.Servers, o.Servers) && slices.Equal(g.Tools, o.Tools) &&
		(g.Servers == nil) == (o.Servers == nil) && (g.Tools == nil) == (o.Tools == nil)
}
