package mcpwire_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestErrorGivesEachConnectionFailureItsWireCode(t *testing.T) {
	for code, want := range map[conn.Code]wire.Code{
		conn.NotReady:       wire.CodeNotReady,
		conn.NotFound:       wire.CodeNotFound,
		conn.BadRequest:     wire.CodeBadRequest,
		conn.ConnectionLost: wire.CodeConnectionLost,
		conn.Timeout:        wire.CodeTimeout,
		conn.Cancelled:      wire.CodeCancelled,
		conn.TooLarge:       wire.CodeTooLarge,
		conn.Server:         wire.CodeProtocol,
		conn.Unusable:       wire.CodeUpstream,
		conn.Internal:       wire.CodeInternal,
	} {
		err := fmt.Errorf("wrapped: %w", &conn.Error{Code: code, Message: "what happened"})
		we, ok := mcpwire.Error(err)
		if !ok || we.Code != want || we.Message != "what happened" || we.RPCCode != 0 {
			t.Errorf("%s: %+v, %v; want %s with the message", code, we, ok, want)
		}
	}
}

func TestErrorKeepsTheServersCode(t *testing.T) {
	err := &conn.Error{Code: conn.Server, Message: "the server answered with error -32001: busy", RPC: &jsonrpc.Error{Code: -32001, Message: "busy"}}
	we, ok := mcpwire.Error(err)
	if !ok || we.Code != wire.CodeProtocol || we.RPCCode != -32001 || we.Message != err.Message {
		t.Errorf("%+v, %v", we, ok)
	}
}

func TestErrorPassesWireErrorsAndLeavesOthers(t *testing.T) {
	in := wire.NewError(wire.CodeNotConfigured, "no model")
	if we, ok := mcpwire.Error(fmt.Errorf("x: %w", in)); !ok || we != in {
		t.Errorf("wire error: %+v, %v", we, ok)
	}
	for _, err := range []error{errors.New("odd"), context.Canceled} {
		if we, ok := mcpwire.Error(err); ok {
			t.Errorf("%v became %+v", err, we)
		}
	}
}
