package service

import (
	"net/http"
	"slices"

	"github.com/switchboard-mcp/switchboard/relay/models"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/relay/session"
)

// newModels builds the registry of the configured models, with the demo
// model after them under Config.Demo, and the drafter of sampling answers
// (nil without a model that can draft).
//
// Every request to a model goes through netguard. A model on a loopback
// address (Ollama, llama.cpp's server on this machine) was chosen by the
// operator, not by a person, so it is reached through a netguard client
// that allows loopback even when Config.AllowLoopback (the MCP servers')
// is off; its redirects are checked like any other. Private and metadata
// addresses stay refused.
func (s *Service) newModels(httpClient *http.Client) (*models.Registry, session.Drafter, error) {
	cfg := s.cfg
	specs := slices.Clone(cfg.Models)
	if cfg.Demo {
		specs = append(specs, models.DemoSpec())
	}
	reg, err := models.New(specs, models.Options{
		HTTPClient: httpClient,
		Local:      netguard.Policy{AllowLoopback: true}.Client(0),
		Logger:     cfg.Logger,
		Keys:       s.modelKeys(),
	})
	if err != nil {
		return nil, nil, err
	}
	for _, spec := range specs {
		cfg.Logger.Info("model configured", "model", spec)
	}
	d, err := reg.Drafter(cfg.SamplingModel)
	if err != nil {
		return nil, nil, err
	}
	if d == nil { // a nil *Drafter in the interface would look like a model
		return reg, nil, nil
	}
	cfg.Logger.Info("sampling drafts with a model", "model", d.Name())
	return reg, d, nil
}

// modelKeys keeps people's own model keys, sealed; nil refuses them.
func (s *Service) modelKeys() models.KeyStore {
	return s.store.ModelKeys(s.store.Sealer())
}
