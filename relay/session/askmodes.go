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

// Asking returns what a connection to reg needs to put its server's asks
// before reg's user: an asker bound to the server, and the modes to
// advertise, as set with [Session.SetAskModes]. The session calls it to
// load a [Dial].
func (m *Manager) Asking(reg store.Server) (conn.Asker, conn.AskModes) {
	s := m.Session(reg.User)
	modes := m.readAskModes(reg.User, reg.ID)
	drafter := m.currentDrafter()
	if modes.Sampling == wire.SamplingModel && drafter == nil {
		modes.Sampling = wire.SamplingAsk // the model is no longer configured
	}
	if drafter != nil {
		modes.Model = drafter.Name()
	}
	s.recordModes(reg.ID, modes)
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

// recordModes notes the modes offered to server id, for the dashboard; the
// connection's next state carries them.
func (s *Session) recordModes(id string, modes wire.AskModes) {
	s.mu.Lock()
	if e, ok := s.servers[id]; ok {
		e.modes = modes
	}
	s.mu.Unlock()
}

// handleAskModeOps registers the op that sets a server's ask modes.
func (m *Manager) handleAskModeOps(mux *ops.Mux) {
	mux.Handle(wire.OpSetAskModes, on(m, func(ctx context.Context, s *Session, a wire.SetAskModesArgs) (any, error) {
		return struct{}{}, s.SetAskModes(ctx, a)
	}))
}

// SetAskModes changes the kinds of asks server a.Server may raise, persists
// them and reconnects the server, since they are advertised when a session
// starts.
func (s *Session) SetAskModes(ctx context.Context, a wire.SetAskModesArgs) error {
	if a.Sampling == "" {
		a.Sampling = wire.SamplingAsk
	}
	if err := checkSampling(a.Sampling); err != nil {
		return err
	}
	if a.Sampling == wire.SamplingModel && s.m.currentDrafter() == nil {
		return wire.NewError(wire.CodeNotConfigured, "no model is configured: "+howToConfigureModel)
	}
	s.redial.Lock()
	defer s.redial.Unlock()
	s.mu.Lock()
	e, ok := s.servers[a.Server]
	s.mu.Unlock()
	if !ok {
		return wire.NewError(wire.CodeNotFound, "no such server")
	}
	b, _ := json.Marshal(wire.AskModes{Form: a.Form, URL: a.URL, Sampling: a.Sampling}) // always marshals
	if err := s.m.store.SetAskModes(ctx, s.user, a.Server, string(b)); err != nil {
		s.m.logger.Error("store ask modes", "user", s.user, "server", a.Server, "err", err)
		return wire.NewError(wire.CodeInternal, "could not save the ask modes")
	}
	s.mu.Lock()
	old := e.conn
	e.conn = nil
	s.mu.Unlock()
	if old != nil {
		old.Close()
	}
	s.connect(e)
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
