package session

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Agents' calls. The latest of them live in the user's state
// (KindAgentCall changes), so that every dashboard shows an agent's call
// while it runs and as it ends; the activity log ([ActivityLog]) keeps
// them. A call is shown as running (its Outcome [wire.OutcomeRunning],
// under an id of its own) from its start, and replaced, in one delta, by
// the call as the log kept it.

// ActivityLog keeps agents' calls; relay/activity's *Log is one. It never
// blocks a call for the store.
type ActivityLog interface {
	// Append keeps the ended call c of user, then calls shown with c as
	// kept (its ID set), or as given when it could not be kept.
	Append(user string, c wire.AgentCall, shown func(wire.AgentCall))
}

// maxRecordedName caps the name (or resource URI) of a recorded call,
// which is kept in the activity log and shown in the dashboards.
const maxRecordedName = 512

// showAgentCallLocked shows rc running and returns the id it shows under.
func (s *Session) showAgentCallLocked(rc *runningCall) string {
	return s.showRunningLocked(agentCallLocked(rc, wire.OutcomeRunning))
}

// showRunningLocked shows c running, under an id of its own, and returns
// that id.
func (s *Session) showRunningLocked(c wire.AgentCall) string {
	c.ID, c.Duration = "running-"+strconv.FormatUint(s.calls.Add(1), 10), 0
	s.replaceAgentCallLocked("", c)
	return c.ID
}

// recordAgentCall shows that rc ended with outcome and has the log keep
// it; the call as kept then replaces its running one.
func (s *Session) recordAgentCall(rc *runningCall, outcome wire.Outcome) {
	s.mu.Lock()
	c := agentCallLocked(rc, outcome)
	s.mu.Unlock()
	s.keepAgentCall(rc.id, c)
}

// keepAgentCall has the log keep the ended call c, then shows it as kept
// in place of the one shown running under id running.
func (s *Session) keepAgentCall(running string, c wire.AgentCall) {
	shown := func(kept wire.AgentCall) {
		if kept.ID == "" {
			kept.ID = running // not kept: shown under its running id
		}
		if kept.ID == "" {
			return // never shown, never kept
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.replaceAgentCallLocked(running, kept)
	}
	if s.m.activity == nil {
		shown(c)
		return
	}
	s.m.activity.Append(s.user, c, shown)
}

// agentCallLocked is rc, which ended with outcome, as the log keeps it.
func agentCallLocked(rc *runningCall, outcome wire.Outcome) wire.AgentCall {
	a := rc.caller.Agent
	return wire.AgentCall{
		Agent: a.Name, KeyID: a.KeyID, Server: rc.o.reg.ID, Tool: wire.Sanitize(rc.name, maxRecordedName),
		Start: rc.start, Duration: time.Since(rc.start).Milliseconds(), Outcome: outcome, Asked: rc.asked,
		ByCode: a.ByCode,
	}
}

// StartProgram shows agent a's code-mode program running and returns the
// function that records how it ended, and whether a person was asked during
// it. The program's own tool calls are recorded as calls, ByCode.
func (s *Session) StartProgram(a *Agent, program string) (end func(outcome wire.Outcome, asked bool)) {
	c := wire.AgentCall{
		Agent: a.Name, KeyID: a.KeyID, Tool: "execute", Start: time.Now(), Outcome: wire.OutcomeRunning,
		Program: programShown(program),
	}
	s.mu.Lock()
	running := s.showRunningLocked(c)
	s.mu.Unlock()
	return func(outcome wire.Outcome, asked bool) {
		c.Outcome, c.Asked, c.Duration = outcome, asked, time.Since(c.Start).Milliseconds()
		s.keepAgentCall(running, c)
	}
}

// replaceAgentCallLocked removes call old (if any) and appends c, dropping
// the oldest calls beyond the bound, and publishes that as one delta.
func (s *Session) replaceAgentCallLocked(old string, c wire.AgentCall) {
	b, err := json.Marshal(c)
	if err != nil {
		return
	}
	var changes []wire.Change
	if i := slices.IndexFunc(s.agents, func(a wire.AgentCall) bool { return a.ID == old }); old != "" && i >= 0 {
		changes = append(changes, wire.Change{Kind: wire.KindAgentCall, Server: s.agents[i].Server, Key: old, Remove: true})
		s.agents = slices.Delete(s.agents, i, i+1)
	}
	changes = append(changes, wire.Change{Kind: wire.KindAgentCall, Server: c.Server, Key: c.ID, Value: b})
	s.agents = append(s.agents, c)
	if n := len(s.agents) - wire.MaxLiveAgentCalls; n > 0 {
		for _, gone := range s.agents[:n] {
			changes = append(changes, wire.Change{Kind: wire.KindAgentCall, Server: gone.Server, Key: gone.ID, Remove: true})
		}
		s.agents = append(s.agents[:0:0], s.agents[n:]...)
	}
	s.publishLocked(changes)
}

// programShown is a program as the activity shows it: valid UTF-8, no
// control characters but line ends and tabs, cut to wire.MaxProgramShown
// characters.
func programShown(p string) string {
	p = strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(p, "\uFFFD"))
	if r := []rune(p); len(r) > wire.MaxProgramShown {
		p = string(r[:wire.MaxProgramShown-1]) + "…"
	}
	return p
}
