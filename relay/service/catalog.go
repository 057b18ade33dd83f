package service

import (
	"context"
	"os"

	"github.com/switchboard-mcp/switchboard/relay/catalog"
)

// loadCatalog reads the operator's catalog (Config.CatalogFile) at start:
// a file the relay cannot take stops it with the reason. It returns the
// file's content, from which the watch looks for changes.
func loadCatalog(path string) (catalog.Catalog, []byte, error) {
	if path == "" {
		return catalog.Catalog{}, nil, nil
	}
	return catalog.Load(path, os.LookupEnv)
}

// watchCatalog replaces the catalog whenever its file changes into a
// well-formed one; a version it cannot take is logged, and the previous
// catalog stays offered.
func (s *Service) watchCatalog(loaded []byte) {
	cfg := s.cfg
	if cfg.CatalogFile == "" {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.catalogStop = cancel
	s.catalogDone.Go(func() {
		catalog.Watch(ctx, cfg.CatalogFile, cfg.CatalogInterval, os.LookupEnv, loaded, func(c catalog.Catalog) {
			s.sessions.SetCatalog(c)
			cfg.Logger.Info("catalog reloaded", "file", cfg.CatalogFile, "servers", len(c.Entries))
		}, func(err error) {
			cfg.Logger.Error("catalog not reloaded, the previous one stays", "err", err)
		})
	})
}

// stopCatalog ends the catalog's watch and waits for it.
func (s *Service) stopCatalog() {
	if s.catalogStop != nil {
		s.catalogStop()
		s.catalogDone.Wait()
	}
}
