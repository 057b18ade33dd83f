package conn

import (
	"errors"
	"io"
	"net/url"
	"syscall"
	"testing"
)

func TestConnectionBrokeLooksInsideURLErrors(t *testing.T) {
	refused := errors.New("the authorization could not be renewed for now")
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&url.Error{Op: "Post", URL: "http://127.0.0.1:9/mcp", Err: refused}, false},
		{&url.Error{Op: "Post", URL: "http://127.0.0.1:9/mcp", Err: io.ErrUnexpectedEOF}, true},
		{&url.Error{Op: "Post", URL: "http://127.0.0.1:9/mcp", Err: syscall.ECONNREFUSED}, true},
		{refused, false},
	} {
		if got := connectionBroke(tc.err); got != tc.want {
			t.Errorf("connectionBroke(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
