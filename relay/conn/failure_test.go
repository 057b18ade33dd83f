package conn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func TestDescribeNamesTheStepAndTheCause(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, Err: syscall.ECONNREFUSED}
	rejected := &jsonrpc.Error{Code: rejectedCode, Message: rejectedMessage}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"network error inside a request", failure(stepConnect, fmt.Errorf(`calling "initialize": %w`,
			fmt.Errorf("sending: %w: %w", rejected, &url.Error{Op: "Post", URL: "http://127.0.0.1:1/mcp?key=k", Err: refused}))),
			"connect: dial tcp 127.0.0.1:1: connection refused"},
		{"server error beside the rejection marker", failure(stepHealth, fmt.Errorf(`sending "ping": %w: %w`, &jsonrpc.Error{Code: -32001, Message: "Session not found"}, rejected)),
			"health check: Session not found"},
		{"rejection marker alone", failure(stepLost, fmt.Errorf(`calling "x": sending "x": %w: Bad Gateway`, rejected)),
			"connection lost: Bad Gateway"},
		{"timeout", failure(stepConnect, &url.Error{Op: "Post", URL: "http://h/mcp", Err: context.DeadlineExceeded}),
			"connect: timed out"},
		{"plain error", failure(stepLost, errClosedByServer), "connection lost: the server closed the connection"},
		{"no step", errors.New("odd"), "odd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := describe(tc.err); got != tc.want {
				t.Errorf("describe(%v)\n = %q\nwant %q", tc.err, got, tc.want)
			}
		})
	}
}
