package wire

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Version is the protocol version carried by every frame.
const Version = 1

// Limits of the protocol.
const (
	// MaxInboundFrame is the largest frame the relay accepts from a dashboard.
	MaxInboundFrame = 1 << 20
	// MaxResultBytes caps the JSON of one op result sent to a dashboard, by
	// default: the relay's --max-result-bytes changes it.
	MaxResultBytes = 4 << 20
	// MaxErrorMessage caps the length of an error message, in runes.
	MaxErrorMessage = 300
	// MaxServerName is the longest server name, in runes.
	MaxServerName = 100
)

// FrameType names what a frame carries.
type FrameType string

// Frame types.
const (
	// TypeAuth (dashboard → relay) carries a token when the socket was opened
	// without a session cookie or Authorization header: first, before the hello,
	// and again with a fresh token before the last one expires.
	TypeAuth FrameType = "auth"
	// TypeHello (dashboard → relay) starts the stream; see [Hello].
	TypeHello FrameType = "hello"
	// TypeSnapshot (relay → dashboard) replaces the dashboard's whole state.
	TypeSnapshot FrameType = "snapshot"
	// TypeDelta (relay → dashboard) carries changes with the next sequence number.
	TypeDelta FrameType = "delta"
	// TypeSynced (relay → dashboard) follows the snapshot or the missed
	// deltas sent in answer to a hello: the dashboard is now up to date, at Seq.
	TypeSynced FrameType = "synced"
	// TypeOp (dashboard → relay) asks for an action; see the Op* names.
	TypeOp FrameType = "op"
	// TypeResult (relay → dashboard) is the successful answer to an op.
	TypeResult FrameType = "result"
	// TypeError (relay → dashboard) is the failed answer to an op, or, without
	// an id, a complaint about a frame the relay could not use.
	TypeError FrameType = "error"
	// TypeProgress (relay → dashboard) reports progress of a running op.
	TypeProgress FrameType = "progress"
)

// CloseCode is a WebSocket close code of the relay's own (4000-4999).
type CloseCode int

// WebSocket close codes the relay uses besides the standard ones.
const (
	// CloseUnauthorized: no token, an invalid one, or one that expired.
	CloseUnauthorized CloseCode = 4401
	// CloseProtocolError: the dashboard broke the frame order (no hello, ...).
	CloseProtocolError CloseCode = 4400
	// CloseTooSlow: the dashboard did not read fast enough; reconnect to resync.
	CloseTooSlow CloseCode = 4429
	// CloseShuttingDown: the relay is stopping; reconnect later.
	CloseShuttingDown CloseCode = 4503
)

// Frame is the envelope of every message.
type Frame struct {
	V     int             `json:"v"`
	Type  FrameType       `json:"type"`
	ID    string          `json:"id,omitempty"`  // op id, on op, result, error and progress frames
	Op    OpName          `json:"op,omitempty"`  // op name, on op frames
	Seq   uint64          `json:"seq,omitempty"` // sequence number, on snapshot, delta and synced frames
	Data  json.RawMessage `json:"data,omitempty"`
	Error *Error          `json:"error,omitempty"`
}

// Auth is the data of a [TypeAuth] frame.
type Auth struct {
	Token string `json:"token"`
}

// Hello is the data of a [TypeHello] frame. Epoch and Seq name the last
// state the dashboard applied; zero values ask for a snapshot.
type Hello struct {
	Epoch string `json:"epoch,omitempty"`
	Seq   uint64 `json:"seq,omitempty"`
}

// Progress is the data of a [TypeProgress] frame.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// ErrBadFrame reports a frame that could not be decoded or has the wrong version.
var ErrBadFrame = errors.New("bad frame")

// Decode parses one frame and checks its version and type.
func Decode(b []byte) (Frame, error) {
	var f Frame
	if err := json.Unmarshal(b, &f); err != nil {
		return Frame{}, fmt.Errorf("%w: %v", ErrBadFrame, err)
	}
	if f.V != Version {
		return Frame{}, fmt.Errorf("%w: protocol version %d, want %d", ErrBadFrame, f.V, Version)
	}
	if f.Type == "" {
		return Frame{}, fmt.Errorf("%w: no type", ErrBadFrame)
	}
	return f, nil
}

// Encode marshals a frame, filling in the version.
func Encode(f Frame) ([]byte, error) {
	f.V = Version
	return json.Marshal(f)
}

// NewFrame builds a frame of the given type whose data is v marshalled.
func NewFrame(typ FrameType, v any) (Frame, error) {
	f := Frame{V: Version, Type: typ}
	if v != nil {
		b, err := json.Marshal(v)
		if err != nil {
			return Frame{}, err
		}
		f.Data = b
	}
	return f, nil
}

// Result builds the result frame answering op id.
func Result(id string, v any) (Frame, error) {
	f, err := NewFrame(TypeResult, v)
	f.ID = id
	return f, err
}

// ErrorFrame builds the error frame answering op id (empty for a frame-level error).
func ErrorFrame(id string, e *Error) Frame {
	return Frame{V: Version, Type: TypeError, ID: id, Error: e}
}

// Op builds an op frame.
func Op(id string, name OpName, args any) (Frame, error) {
	f, err := NewFrame(TypeOp, args)
	f.ID = id
	f.Op = name
	return f, err
}
