package ops_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func codeOf(err error) wire.Code {
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return ""
}

func TestServeRoutesEachOpToItsRoom(t *testing.T) {
	m := ops.NewMux()
	m.Handle(wire.OpRemoveServer, ops.With(func(_ context.Context, user string, a wire.ServerArgs) (any, error) {
		return "removed " + a.Server + " of " + user, nil
	}))
	m.Handle(wire.OpPing, func(context.Context, ops.Request) (any, error) { return "pong", nil })
	res, err := m.Serve(context.Background(), ops.Request{User: "ann", Op: wire.OpRemoveServer, Args: json.RawMessage(`{"server":"s1"}`)})
	if err != nil || res != "removed s1 of ann" {
		t.Fatalf("remove: %v, %v", res, err)
	}
	if res, err := m.Serve(context.Background(), ops.Request{Op: wire.OpPing}); err != nil || res != "pong" {
		t.Fatalf("ping: %v, %v", res, err)
	}
}

func TestServeRefusesUnknownOpsAndBadArguments(t *testing.T) {
	m := ops.NewMux()
	m.Handle(wire.OpRemoveServer, ops.With(func(context.Context, string, wire.ServerArgs) (any, error) { return nil, nil }))
	for _, tc := range []struct {
		name string
		r    ops.Request
		want wire.Code
	}{
		{"unknown op", ops.Request{Op: "server.explode"}, wire.CodeUnknownOp},
		{"no arguments", ops.Request{Op: wire.OpRemoveServer}, wire.CodeBadRequest},
		{"malformed arguments", ops.Request{Op: wire.OpRemoveServer, Args: json.RawMessage(`["s1"]`)}, wire.CodeBadRequest},
	} {
		if _, err := m.Serve(context.Background(), tc.r); codeOf(err) != tc.want {
			t.Errorf("%s: %v, want code %s", tc.name, err, tc.want)
		}
	}
}

func TestHandleTwicePanics(t *testing.T) {
	m := ops.NewMux()
	h := func(context.Context, ops.Request) (any, error) { return nil, nil }
	m.Handle(wire.OpPing, h)
	defer func() {
		if recover() == nil {
			t.Fatal("a second handler for one op was taken")
		}
	}()
	m.Handle(wire.OpPing, h)
}

// A room registers the ops it answers; the dashboard's ops reach them
// through Serve.
func ExampleMux() {
	m := ops.NewMux()
	m.Handle(wire.OpRetryServer, ops.With(func(_ context.Context, user string, a wire.ServerArgs) (any, error) {
		return fmt.Sprintf("%s retries %s", user, a.Server), nil
	}))
	res, err := m.Serve(context.Background(), ops.Request{User: "ann", Op: wire.OpRetryServer, Args: json.RawMessage(`{"server":"files"}`)})
	fmt.Println(res, err)
	// Output: ann retries files <nil>
}
