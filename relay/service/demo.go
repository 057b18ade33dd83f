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
	sess := s.sessions.Session(s.cfg.LocalUser)
	res, err := sess.AddServer(ctx, demoName, u)
	if err == nil {
		s.cfg.Logger.Info("demo server ready to use", "url", u, "server", res.ID)
		return nil
	}
	// A demo registration from an earlier run points at another port: replace it.
	snap, _ := sess.Snapshot()
	for _, srv := range snap.Servers {
		if srv.Name == demoName {
			if err := sess.RemoveServer(ctx, srv.ID); err != nil {
				return err
			}
		}
	}
	if _, err := sess.AddServer(ctx, demoName, u); err != nil {
		return fmt.Errorf("register demo server: %w", err)
	}
	return nil
}
