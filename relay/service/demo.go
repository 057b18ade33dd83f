package service

import (
	"context"
	"fmt"
	"net/url"

	"github.com/switchboard-mcp/switchboard/relay/demo"
)

// Demo registration facts.
const (
	demoName        = "demo"
	demoAddrSetting = "demo.addr" // where the demo server listened last time
)

// startDemo runs the demo MCP server on loopback and registers it for the
// local user. It reuses the previous port when it is free, so the
// registration from the last run stays valid; otherwise it re-registers.
func (s *Service) startDemo(ctx context.Context) error {
	addr, _, err := s.store.Setting(ctx, demoAddrSetting)
	if err != nil {
		return err
	}
	u, stop, err := demo.Start(ctx, addr)
	if err != nil && addr != "" {
		u, stop, err = demo.Start(ctx, "")
	}
	if err != nil {
		return fmt.Errorf("start demo server: %w", err)
	}
	s.demoStop = stop
	if parsed, err := url.Parse(u); err == nil {
		addr = parsed.Host
	}
	if err := s.store.SetSetting(ctx, demoAddrSetting, addr); err != nil {
		return err
	}
	for _, user := range append([]string{s.cfg.LocalUser}, s.cfg.DemoUsers...) {
		if err := s.registerDemo(ctx, user, u); err != nil {
			return err
		}
	}
	return nil
}

// registerDemo registers the demo server at u for user, replacing a
// registration of an earlier run that points at another port.
func (s *Service) registerDemo(ctx context.Context, user, u string) error {
	sess := s.sessions.Session(user)
	res, err := sess.AddServer(ctx, demoName, u)
	if err == nil {
		s.cfg.Logger.Info("demo server ready to use", "user", user, "url", u, "server", res.ID)
		return nil
	}
	snap, _ := sess.Snapshot()
	for _, srv := range snap.Servers {
		if srv.Name == demoName {
			if srv.URL == u {
				return nil // registered by an earlier run, at this address
			}
			if err := sess.RemoveServer(ctx, srv.ID); err != nil {
				return err
			}
		}
	}
	if _, err := sess.AddServer(ctx, demoName, u); err != nil {
		return fmt.Errorf("register demo server for %s: %w", user, err)
	}
	return nil
}
