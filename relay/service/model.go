package service

import (
	"errors"
	"net/http"

	"github.com/switchboard-mcp/switchboard/relay/model"
)

// useModel gives the sessions the configured model, if any, reached through
// the guarded client.
func (s *Service) useModel(httpClient *http.Client) error {
	cfg := s.cfg
	switch {
	case cfg.ModelURL == "" && cfg.ModelName == "":
		if cfg.ModelKey != "" {
			cfg.Logger.Warn("a model key is set but no model: set --model-url and --model-name to draft sampling answers")
		}
		return nil
	case cfg.ModelURL == "" || cfg.ModelName == "":
		return errors.New("a model needs both --model-url and --model-name")
	}
	c, err := model.New(model.Config{URL: cfg.ModelURL, Name: cfg.ModelName, Key: cfg.ModelKey, HTTPClient: httpClient, Logger: cfg.Logger})
	if err != nil {
		return err
	}
	s.sessions.UseDrafter(c)
	cfg.Logger.Info("sampling drafts with a model", "model", cfg.ModelName, "key set", cfg.ModelKey != "")
	return nil
}
