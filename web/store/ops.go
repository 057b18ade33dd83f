package store

import (
	"encoding/json"
	"strconv"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Codes of errors the client makes up itself, beside the relay's wire codes.
const (
	// CodeConnectionLost: the socket to the relay dropped before the op was
	// answered. (Not wire.CodeConnectionLost, the relay's own code for a
	// connection to an MCP server that broke during the op.)
	CodeConnectionLost wire.Code = "relay_connection_lost"
	// CodeOffline: the op was not sent because no socket is open.
	CodeOffline wire.Code = "offline"
)

const (
	msgConnectionLost = "the connection to the relay was lost before its answer came: this may or may not have been done, so check before trying again"
	// msgRelayRestarted is msgConnectionLost for a socket the relay closed
	// saying it restarts: it stopped, or (on replicas) the one that held
	// the person's connections was lost.
	msgRelayRestarted = "the relay restarted this connection before its answer came: this may or may not have been done, so check before trying again"
	msgOffline        = "not connected to the relay; try again once it is live"
	msgBadArgs        = "the op's arguments could not be encoded"
)

// Reply is the answer to an op: Data on success, Err on failure.
type Reply struct {
	Data json.RawMessage
	Err  *wire.Error
}

// pendingOp is an op sent and not answered yet.
type pendingOp struct {
	done     func(Reply)
	progress func(wire.Progress)
}

// replies are callbacks to run once the lock is released.
type replies []func()

func (r replies) run() {
	for _, f := range r {
		f()
	}
}

// Do sends op with args and returns the op's id. done is called exactly
// once, with the answer or with the error that ended the op (the socket
// dropped, or none was open), outside the client's lock and possibly before
// Do returns.
func (c *Client) Do(op wire.OpName, args any, done func(Reply)) string {
	id := c.newID()
	c.send(id, op, args, done, nil)
	return id
}

// newID returns an op id not used before by this client.
func (c *Client) newID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	return "op-" + strconv.FormatUint(c.nextID, 10)
}

// send sends op under id; see [Client.Do]. progress, if not nil, gets the
// op's progress frames.
func (c *Client) send(id string, op wire.OpName, args any, done func(Reply), progress func(wire.Progress)) {
	f, err := wire.Op(id, op, args)
	var b []byte
	if err == nil {
		b, err = wire.Encode(f)
	}
	c.mu.Lock()
	var failed *wire.Error
	switch {
	case err != nil:
		failed = &wire.Error{Code: wire.CodeBadRequest, Message: msgBadArgs}
	case c.sock == nil || c.status != StatusLive:
		failed = &wire.Error{Code: CodeOffline, Message: msgOffline}
	default:
		c.pending[id] = &pendingOp{done: done, progress: progress}
	}
	sock := c.sock
	c.mu.Unlock()

	if failed != nil {
		done(Reply{Err: failed})
		return
	}
	_ = sock.Send(string(b)) // a failed send ends in Closed, which fails the op
}

// answerLocked matches a result, error or progress frame to its op.
func (c *Client) answerLocked(f wire.Frame) replies {
	op, ok := c.pending[f.ID]
	if !ok {
		return nil // an answer to nothing, or a frame-level error: nothing waits for it
	}
	switch f.Type {
	case wire.TypeProgress:
		var p wire.Progress
		if op.progress == nil || json.Unmarshal(f.Data, &p) != nil {
			return nil
		}
		return replies{func() { op.progress(p) }}
	case wire.TypeError:
		delete(c.pending, f.ID)
		e := f.Error
		if e == nil {
			e = &wire.Error{Code: wire.CodeInternal, Message: "the relay reported an error without details"}
		}
		return replies{func() { op.done(Reply{Err: e}) }}
	default:
		delete(c.pending, f.ID)
		return replies{func() { op.done(Reply{Data: f.Data}) }}
	}
}

// failPendingLocked ends every waiting op with e.
func (c *Client) failPendingLocked(e *wire.Error) replies {
	var out replies
	for id, op := range c.pending {
		delete(c.pending, id)
		out = append(out, func() { op.done(Reply{Err: e}) })
	}
	return out
}
