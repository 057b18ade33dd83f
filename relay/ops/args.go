package ops

import (
	"context"
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// With is the handler that decodes an op's arguments into an A and runs do
// with them and the op's user.
func With[A any](do func(ctx context.Context, user string, args A) (any, error)) Handler {
	return func(ctx context.Context, r Request) (any, error) {
		var args A
		if err := Decode(r.Args, &args); err != nil {
			return nil, err
		}
		return do(ctx, r.User, args)
	}
}

// Decode decodes an op's arguments into v; missing or malformed arguments
// are a [wire.CodeBadRequest] error.
func Decode(data json.RawMessage, v any) error {
	if len(data) == 0 {
		return wire.NewError(wire.CodeBadRequest, "missing op arguments")
	}
	if err := json.Unmarshal(data, v); err != nil {
		return wire.NewError(wire.CodeBadRequest, "malformed op arguments: "+err.Error())
	}
	return nil
}
