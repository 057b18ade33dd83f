package store

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestEachCallErrorHasOneWording(t *testing.T) {
	for _, tc := range []struct {
		err       *wire.Error
		want      string
		forbidden []string
	}{
		{&wire.Error{Code: wire.CodeNotReady, Message: "the server is not connected"}, "The server is not connected. " + NotReadyHint, nil},
		{&wire.Error{Code: wire.CodeConnectionLost, Message: "the connection to the server was lost"},
			"The connection to the server was lost during the call; it may or may not have run. " + NotReadyHint, []string{"answered"}},
		{&wire.Error{Code: wire.CodeTimeout, Message: "timed out"},
			"The server did not answer in time. The call was given up; it may still run on the server.", []string{"answered with"}},
		{&wire.Error{Code: wire.CodeTimeout, Message: "no answer after 60s"},
			"The server did not answer in time (no answer after 60s). The call was given up; it may still run on the server.", nil},
		{&wire.Error{Code: wire.CodeProtocol, Message: "invalid params", RPCCode: -32602},
			"The server answered with an error (code -32602): invalid params", nil},
		{&wire.Error{Code: wire.CodeTooLarge, Message: "the result is 5000000 bytes, over the limit of 4194304"},
			"The result is too large for the relay (the result is 5000000 bytes, over the limit of 4194304).", nil},
		{&wire.Error{Code: wire.CodeCancelled, Message: "cancelled"}, "Cancelled.", nil},
		{&wire.Error{Code: wire.CodeUpstream, Message: "EOF"}, "The call to the server failed (EOF).", []string{"answered"}},
	} {
		got := describeError(tc.err)
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.err.Code, got, tc.want)
		}
		for _, f := range tc.forbidden {
			if strings.Contains(got, f) {
				t.Errorf("%s: %q says %q", tc.err.Code, got, f)
			}
		}
	}
}
