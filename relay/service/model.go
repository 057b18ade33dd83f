package service

import (
	"errors"
	"net/http"

	"github.com/switchboard-mcp/switchboard/relay/model"
	"github.com/switchboard-mcp/switchboard/relay/session"
)

// newDrafter returns the configured model, if any (nil otherwise), reached
// through the guarded client.
func (s *Service) newDrafter(httpClient *http.Client) (session.Drafter, error) {
	cfg := s.cfg
	switch {
	case cfg.ModelURL == "" && cfg.ModelName == "":
		if cfg.ModelKey != "" {
			cfg.Logger.Warn("a model key is set but no model: set --model-url and --model-name to draft sampling answers")
		}
		return nil, nil
	case cfg.ModelURL == "" || cfg.ModelName == "":
		return nil, errors.New("a model needs both --model-url and --model-name")
	}
	c, err := model.New(model.Config{URL: cfg.ModelURL, Name: cfg.ModelName, Key: cfg.ModelKey, HTTPClient: httpClient, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	cfg.Logger.Info("sampling drafts with a model", "model", cfg.ModelName, "key set", cfg.ModelKey != "")
	return c, nil
}
