package web

import (
	"slices"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// Messages between the embedded dashboard and its host page, through
// postMessage. Each is an object with a type; the host sends a token or a
// theme, the frame tells the host only the events below and nothing else
// of the person's servers.
const (
	msgToken     = "switchboard:token"      // host → frame: {token}
	msgTheme     = "switchboard:theme"      // host → frame: {properties, colorScheme}
	msgReady     = "switchboard:ready"      // frame → host: listening; send a token
	msgSignedOut = "switchboard:signed-out" // frame → host: the token expired or was refused; send a fresh one
	msgServers   = "switchboard:servers"    // frame → host: {servers: [{id, name, state}]}
	msgQuestions = "switchboard:questions"  // frame → host: {count} of asks waiting for an answer
)

// hostServer is all the host learns of a server.
type hostServer struct {
	ID    string           `json:"id"`
	Name  string           `json:"name"`
	State wire.ServerState `json:"state"`
}

// hostEvent is one message to the host page.
type hostEvent map[string]any

// hostReport remembers what the host was told, so that it hears of a
// change once.
type hostReport struct {
	servers   []hostServer
	told      bool // servers and questions were told at least once
	questions int
	signedOut bool
}

// next returns the events that tell the host what changed in v since the
// last call.
func (r *hostReport) next(v store.View) []hostEvent {
	var out []hostEvent
	signedOut := v.Status == store.StatusSignedOut
	if signedOut && !r.signedOut {
		out = append(out, hostEvent{"type": msgSignedOut})
	}
	r.signedOut = signedOut
	if !v.Loaded {
		return out
	}
	servers := make([]hostServer, 0, len(v.Snapshot.Servers))
	for _, s := range v.Snapshot.Servers {
		servers = append(servers, hostServer{ID: s.ID, Name: s.Name, State: s.State})
	}
	questions := pendingAsks(v.Snapshot.Asks)
	if !r.told || !slices.Equal(servers, r.servers) {
		list := make([]any, len(servers))
		for i, s := range servers {
			list[i] = map[string]any{"id": s.ID, "name": s.Name, "state": string(s.State)}
		}
		out = append(out, hostEvent{"type": msgServers, "servers": list})
	}
	if !r.told || questions != r.questions {
		out = append(out, hostEvent{"type": msgQuestions, "count": questions})
	}
	r.servers, r.questions, r.told = servers, questions, true
	return out
}
