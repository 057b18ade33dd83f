package store

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestEachCallErrorHasOneWording(t *testing.T) {
	// The messages are the relay's own (relay/conn/callerrors.go).
	for _, tc := range []struct {
		err       *wire.Error
		want      string
		forbidden []string
	}{
		{&wire.Error{Code: wire.CodeNotReady, Message: "the server is not connected: its last attempt failed (connect: refused)"},
			"The server is not connected: its last attempt failed (connect: refused). " + NotReadyHint, nil},
		{&wire.Error{Code: wire.CodeConnectionLost, Message: "the connection to the server was lost before it answered; the relay reconnects"},
			"The connection to the server was lost before it answered; the relay reconnects. The call may or may not have run.", []string{"answered with"}},
		{&wire.Error{Code: wire.CodeTimeout, Message: "the server did not answer within 5m0s, the relay's limit for a call"},
			"The server did not answer within 5m0s, the relay's limit for a call. The call may still run on the server.", []string{"answered with"}},
		{&wire.Error{Code: wire.CodeProtocol, Message: "the server answered with error -32602: invalid params", RPCCode: -32602},
			"The server answered with error -32602: invalid params.", nil},
		{&wire.Error{Code: wire.CodeTooLarge, Message: "the result is 5000000 bytes, over the relay's limit of 4194304 bytes"},
			"The result is 5000000 bytes, over the relay's limit of 4194304 bytes.", nil},
		{&wire.Error{Code: wire.CodeCancelled, Message: "the call was cancelled"}, "Cancelled.", nil},
		{&wire.Error{Code: wire.CodeUpstream, Message: "the server's answer could not be used: invalid character"},
			"The server's answer could not be used: invalid character.", []string{"answered with"}},
	} {
		got := describeError(tc.err)
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.err.Code, got, tc.want)
		}
		for _, twice := range []string{"not connected", "lost", "did not answer", "answered with", "too large", "could not be used"} {
			if strings.Count(strings.ToLower(got), twice) > 1 {
				t.Errorf("%s: %q says %q twice", tc.err.Code, got, twice)
			}
		}
		for _, f := range tc.forbidden {
			if strings.Contains(got, f) {
				t.Errorf("%s: %q says %q", tc.err.Code, got, f)
			}
		}
	}
}
