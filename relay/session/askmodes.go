package session

import (
	"context"
	"encoding/json"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Ask modes: per server, the kinds of asks a person lets it raise
// (elicitation forms, URLs) and how its sampling requests are answered
// (off, a card, the model). They are stored as JSON with the server's
// client preferences (they go with the server).
const settingTimeout = 5 * time.Second

// defaultAskModes are the modes of a server nobody changed.
var defaultAskModes = wire.AskModes{Form: true, URL: true, Sampling: wire.SamplingAsk}

// asking returns what a connection to reg needs to put its server's asks
// before the person: an asker bound to the server, and the modes to
// advertise, as set with [Server.SetAskModes]. It loads a [Dial].
func (o *Server) asking(reg store.Server) (conn.Asker, conn.AskModes) {
	s, m := o.s, o.s.m
	modes := m.readAskModes(reg.User, reg.ID)
	drafter := m.drafter
	if modes.Sampling == wire.SamplingModel && drafter == nil {
		modes.Sampling = wire.SamplingAsk // the model is no longer configured
	}
	if drafter != nil {
		modes.Model = drafter.Name()
	}
	s.mu.Lock()
	o.modes = modes // the connection's next state shows them
	s.mu.Unlock()
	asker := serverAsker{b: s.broker, server: reg.ID, name: reg.Name, sampling: modes.Sampling, drafter: drafter, modelSlots: s.modelSlots,
		log: m.logger.With("user", reg.User, "server", reg.ID)}
	return asker, conn.AskModes{Form: modes.Form, URL: modes.URL, Sampling: modes.Sampling != wire.SamplingOff}
}

// readAskModes reads the modes stored for server, or the defaults.
func (m *Manager) readAskModes(user, server string) wire.AskModes {
	ctx, cancel := context.WithTimeout(context.Background(), settingTimeout)
	defer cancel()
	value, err := m.store.AskModes(ctx, user, server)
	switch {
	case err != nil:
		m.logger.Error("read ask modes", "user", user, "server", server, "err", err)
		return defaultAskModes
	case value == "":
		return defaultAskModes
	}
	return decodeAskModes(value)
}

// decodeAskModes reads a stored value; what cannot be read is the default.
func decodeAskModes(value string) wire.AskModes {
	var modes wire.AskModes
	if err := json.Unmarshal([]byte(value), &modes); err != nil {
		return defaultAskModes
	}
	if checkSampling(modes.Sampling) != nil {
		modes.Sampling = wire.SamplingAsk
	}
	modes.Model = ""
	return modes
}

// handleAskModeOps registers the op that sets a server's ask modes.
func (m *Manager) handleAskModeOps(mux *ops.Mux) {
	mux.Handle(wire.OpSetAskModes, onOwner(m, func(ctx context.Context, o *Server, a wire.SetAskModesArgs) (any, error) {
		return struct{}{}, o.SetAskModes(ctx, a)
	}))
}

// SetAskModes changes the kinds of asks the server may raise, persists
// them and reconnects the server, since they are advertised when a session
// starts.
func (o *Server) SetAskModes(ctx context.Context, a wire.SetAskModesArgs) error {
	s := o.s
	if a.Sampling == "" {
		a.Sampling = wire.SamplingAsk
	}
	if err := checkSampling(a.Sampling); err != nil {
		return err
	}
	if a.Sampling == wire.SamplingModel && s.m.drafter == nil {
		return wire.NewError(wire.CodeNotConfigured, "no model is configured: "+howToConfigureModel)
	}
	s.redial.Lock()
	defer s.redial.Unlock()
	b, _ := json.Marshal(wire.AskModes{Form: a.Form, URL: a.URL, Sampling: a.Sampling}) // always marshals
	if err := s.m.store.SetAskModes(ctx, s.user, o.reg.ID, string(b)); err != nil {
		s.m.logger.Error("store ask modes", "user", s.user, "server", o.reg.ID, "err", err)
		return storeFailed(err, "could not save the ask modes")
	}
	s.mu.Lock()
	old := o.conn
	o.conn = nil
	s.mu.Unlock()
	if old != nil {
		old.Close()
	}
	o.connect()
	return nil
}

// checkSampling checks a sampling mode.
func checkSampling(mode wire.SamplingMode) error {
	switch mode {
	case wire.SamplingOff, wire.SamplingAsk, wire.SamplingModel:
		return nil
	}
	return wire.NewError(wire.CodeBadRequest, "the sampling mode must be off, ask or model")
}
