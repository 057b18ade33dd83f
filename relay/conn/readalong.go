package conn

import "context"

// readAlong reads along msg, a message the server sent in answer to a
// request made under ctx: for the connection's read-along and, when the
// request is a call's, for the attribution of the server requests on that
// call's stream (caller.go).
func (c *Conn) readAlong(ctx context.Context, msg []byte) {
	c.ra.Scan(msg)
	if id, ok := callIDOf(ctx); ok {
		c.calls.scan(id, msg)
	}
}
