package session

import (
	"context"
	"fmt"

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

// authOp runs wire.OpAuthorize and wire.OpSetClient.
func (s *Session) authOp(ctx context.Context, f wire.Frame) (any, error) {
	if s.m.auth == nil {
		return nil, wire.NewError(wire.CodeUnknownOp, "this relay does not do OAuth")
	}
	if err := s.refuseOnConfigured(f.Data, "authorized with OAuth"); err != nil {
		return nil, err
	}
	if f.Op == wire.OpAuthorize {
		return onServer(s, f.Data, func(_ Connection, a wire.ServerArgs) (any, error) {
			u, err := s.m.auth.Authorize(ctx, s.user, a.Server)
			if err != nil {
				return nil, err
			}
			if _, err := urlsafe.CheckOpenable(u); err != nil {
				return nil, wire.NewError(wire.CodeInvalidURL, err.Error())
			}
			return wire.AuthorizeResult{URL: u}, nil
		})
	}
	return onServer(s, f.Data, func(_ Connection, a wire.SetClientArgs) (any, error) {
		return struct{}{}, s.m.auth.SetClient(ctx, s.user, a.Server, a.ClientID, a.ClientSecret)
	})
}

// forgetAuth deletes the OAuth state of a removed server.
func (s *Session) forgetAuth(ctx context.Context, id string) {
	if s.m.auth == nil {
		return
	}
	if err := s.m.auth.Forget(ctx, s.user, id); err != nil {
		s.m.logger.Error("forget oauth", "user", s.user, "server", id, "err", err)
	}
}

// checkTransport returns the transport named by an AddServer op, auto when
// empty.
func checkTransport(t string) (string, error) {
	switch t {
	case "", wire.TransportAuto:
		return wire.TransportAuto, nil
	case wire.TransportStreamable, wire.TransportSSE:
		return t, nil
	}
	return "", wire.NewError(wire.CodeBadRequest, fmt.Sprintf("unknown transport %q (use %q, %q or %q)",
		wire.Sanitize(t, wire.MaxServerName), wire.TransportAuto, wire.TransportStreamable, wire.TransportSSE))
}
