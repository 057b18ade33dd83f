package session

import (
	"context"
	"fmt"

	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/shared/urlsafe"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Auth is the OAuth side of the relay as sessions use it; *oauth.Manager
// satisfies it. Its errors are [*wire.Error] fit to show.
type Auth interface {
	// Authorize returns the URL that starts an authorization of the user's
	// server in the user's browser (the relay's start page, which binds the
	// authorization to that browser).
	Authorize(ctx context.Context, user, server string) (string, error)
	// SetClient stores pre-registered client credentials; an empty id clears them.
	SetClient(ctx context.Context, user, server, clientID, clientSecret string) error
	// Forget deletes the server's tokens and registrations.
	Forget(ctx context.Context, user, server string) error
	// Release drops what is held in memory for the server, keeping what is
	// stored, for a connection to a new URL on the same origin.
	Release(user, server string)
}

// handleAuthOps registers the OAuth ops on a server (a relay without
// OAuth does not know them): start an authorization, set the client
// credentials.
func (m *Manager) handleAuthOps(mux *ops.Mux) {
	if m.auth == nil {
		return
	}
	mux.Handle(wire.OpAuthorize, onOAuthServer(m, func(ctx context.Context, s *Session, a wire.ServerArgs) (any, error) {
		u, err := s.m.auth.Authorize(ctx, s.user, a.Server)
		if err != nil {
			return nil, err
		}
		if _, err := urlsafe.CheckOpenable(u); err != nil {
			return nil, wire.NewError(wire.CodeInvalidURL, err.Error())
		}
		return wire.AuthorizeResult{URL: u}, nil
	}))
	mux.Handle(wire.OpSetClient, onOAuthServer(m, func(ctx context.Context, s *Session, a wire.SetClientArgs) (any, error) {
		return struct{}{}, s.m.auth.SetClient(ctx, s.user, a.Server, a.ClientID, a.ClientSecret)
	}))
}

// onOAuthServer is the handler that runs do on a connected server that is
// not one of the operator's (OAuth is for HTTP servers a person added).
func onOAuthServer[A interface{ ServerID() string }](m *Manager, do func(ctx context.Context, s *Session, args A) (any, error)) ops.Handler {
	return onOwner(m, func(ctx context.Context, o *Server, args A) (any, error) {
		if reg := o.registration(); isConfigured(reg) {
			return nil, refuseConfigured(reg, "authorized with OAuth")
		}
		if _, err := o.Connection(); err != nil {
			return nil, err
		}
		return do(ctx, o.s, args)
	})
}

// forgetAuth deletes the OAuth state of user's removed server id.
func (m *Manager) forgetAuth(ctx context.Context, user, id string) {
	if m.auth == nil {
		return
	}
	if err := m.auth.Forget(ctx, user, id); err != nil {
		m.logger.Error("forget oauth", "user", user, "server", id, "err", err)
	}
}

// checkTransport returns the transport named by an AddServer op, auto when
// empty.
func checkTransport(t wire.Transport) (wire.Transport, error) {
	switch t {
	case "", wire.TransportAuto:
		return wire.TransportAuto, nil
	case wire.TransportStreamable, wire.TransportSSE:
		return t, nil
	}
	return "", wire.NewError(wire.CodeBadRequest, fmt.Sprintf("unknown transport %q (use %q, %q or %q)",
		wire.Sanitize(string(t), wire.MaxServerName), wire.TransportAuto, wire.TransportStreamable, wire.TransportSSE))
}
