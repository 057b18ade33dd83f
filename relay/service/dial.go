package service

import (
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/relay/tracing"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// dialer opens a server's connection from what its session loaded: every
// request through the guarded client hc, OAuth through auth unless the
// person set an Authorization header, the server's own retry settings over
// the relay's.
func (s *Service) dialer(hc *http.Client, auth *oauth.Manager, stdio stdioServers) session.Dialer {
	cfg := s.cfg
	hc = tracing.Client(hc) // MCP servers' own traces join the relay's
	return func(d session.Dial, report func(conn.State)) session.Connection {
		reg := d.Reg
		c := conn.Config{
			ID:             reg.ID,
			Name:           reg.Name,
			URL:            reg.URL,
			HTTPClient:     hc,
			Headers:        reg.Headers,
			Logger:         cfg.Logger.With("user", reg.User),
			HealthInterval: cfg.HealthInterval,
			RetryMin:       cfg.RetryMin,
			RetryMax:       cfg.RetryMax,
			RetryAttempts:  reg.Retry.Attempts,
			Asker:          d.Asker,
			Modes:          d.Modes,
			Transport:      wire.Transport(reg.Transport),
			Command:        stdio.command(reg),
			Roots:          d.Client.Roots,
			LogLevel:       d.Client.LogLevel,
			Journal:        d.Client.Journal,
			Subscriptions:  d.Subscriptions,
			CallTimeout:    cfg.CallTimeout,
			MaxResultBytes: cfg.MaxResultBytes,
			Apps:           cfg.AppsOrigin != "",
		}
		if reg.Retry.BaseDelayMS > 0 {
			c.RetryMin = time.Duration(reg.Retry.BaseDelayMS) * time.Millisecond
		}
		if reg.Retry.MaxDelayMS > 0 {
			c.RetryMax = time.Duration(reg.Retry.MaxDelayMS) * time.Millisecond
		}
		if d.OAuth() {
			c.Auth = auth.For(reg.User, reg.ID, reg.URL)
		}
		return conn.Start(c, report)
	}
}
