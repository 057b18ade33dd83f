package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/coder/websocket"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// socket is a Go dashboard: a WebSocket to the relay speaking the wire
// protocol, as the browser's store does.
type socket struct {
	c      *websocket.Conn
	ids    atomic.Int64
	states map[string]wire.ServerState // server id → last state seen
	snap   []byte                      // the snapshot frame, as received
	early  [][]byte                    // the frames between the snapshot and synced
}

// dialSocket opens a dashboard socket with a bearer token, says hello and
// reads the snapshot.
func dialSocket(ctx context.Context, r *relayProc, token string) (*socket, error) {
	h := http.Header{"Origin": {r.URL()}, "Authorization": {"Bearer " + token}}
	c, _, err := websocket.Dial(ctx, "ws://"+r.hello.Addr+"/ws", &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(2 * wire.MaxResultBytes)
	s := &socket{c: c, states: map[string]wire.ServerState{}}
	if err := s.send(ctx, wire.Frame{Type: wire.TypeHello, Data: json.RawMessage(`{}`)}); err != nil {
		c.CloseNow()
		return nil, err
	}
	for {
		b, f, err := s.read(ctx)
		if err != nil {
			c.CloseNow()
			return nil, err
		}
		if f.Type == wire.TypeSnapshot {
			s.snap = b
			var snap wire.Snapshot
			if err := json.Unmarshal(f.Data, &snap); err != nil {
				return nil, err
			}
			for _, srv := range snap.Servers {
				s.states[srv.ID] = srv.State
			}
		}
		if f.Type == wire.TypeSynced {
			return s, nil
		}
		if f.Type != wire.TypeSnapshot && s.snap != nil {
			s.early = append(s.early, b)
		}
	}
}

func (s *socket) close() { s.c.Close(websocket.StatusNormalClosure, "") }

func (s *socket) send(ctx context.Context, f wire.Frame) error {
	b, err := wire.Encode(f)
	if err != nil {
		return err
	}
	return s.c.Write(ctx, websocket.MessageText, b)
}

// read reads one frame and notes the server states its deltas carry.
func (s *socket) read(ctx context.Context) ([]byte, wire.Frame, error) {
	_, b, err := s.c.Read(ctx)
	if err != nil {
		return nil, wire.Frame{}, err
	}
	f, err := wire.Decode(b)
	if err != nil {
		return nil, wire.Frame{}, err
	}
	if f.Type == wire.TypeDelta {
		var d wire.Delta
		if err := json.Unmarshal(f.Data, &d); err != nil {
			return nil, wire.Frame{}, err
		}
		for _, c := range d.Changes {
			if c.Kind != wire.KindServer {
				continue
			}
			if c.Remove {
				delete(s.states, c.Key)
				continue
			}
			var srv wire.Server
			if json.Unmarshal(c.Value, &srv) == nil {
				s.states[c.Key] = srv.State
			}
		}
	}
	return b, f, nil
}

// op sends an op and returns its answer, reading (and noting) what comes
// before it.
func (s *socket) op(ctx context.Context, name wire.OpName, args any) (wire.Frame, error) {
	id := "b" + strconv.FormatInt(s.ids.Add(1), 10)
	f, err := wire.Op(id, name, args)
	if err != nil {
		return wire.Frame{}, err
	}
	if err := s.send(ctx, f); err != nil {
		return wire.Frame{}, err
	}
	for {
		_, got, err := s.read(ctx)
		if err != nil {
			return wire.Frame{}, err
		}
		if got.ID != id {
			continue
		}
		switch got.Type {
		case wire.TypeResult:
			return got, nil
		case wire.TypeError:
			return got, fmt.Errorf("op %s: %s", name, got.Error.Message)
		}
	}
}

// addServer registers a server and returns its id.
func (s *socket) addServer(ctx context.Context, name, url string) (string, error) {
	f, err := s.op(ctx, wire.OpAddServer, wire.AddServerArgs{Name: name, URL: url})
	if err != nil {
		return "", err
	}
	var res wire.AddServerResult
	return res.ID, json.Unmarshal(f.Data, &res)
}

// waitReady reads until every server in ids is ready.
func (s *socket) waitReady(ctx context.Context, ids ...string) error {
	for {
		missing := ""
		for _, id := range ids {
			if s.states[id] != wire.StateReady {
				missing = id
				break
			}
		}
		if missing == "" {
			return nil
		}
		if _, _, err := s.read(ctx); err != nil {
			return fmt.Errorf("waiting for server %s to be ready (%s): %w", missing, s.states[missing], err)
		}
	}
}

// callTool calls a tool through the relay and returns the result frame.
func (s *socket) callTool(ctx context.Context, server, name string) (wire.Frame, error) {
	return s.op(ctx, wire.OpCallTool, wire.CallToolArgs{Server: server, Name: name, Arguments: json.RawMessage(`{}`)})
}

// closed reads until the relay ends the socket and returns the read's
// error, which carries the close code (websocket.CloseStatus).
func (s *socket) closed(ctx context.Context) error {
	for {
		if _, _, err := s.read(ctx); err != nil {
			return err
		}
	}
}
