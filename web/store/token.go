package store

import "github.com/switchboard-mcp/switchboard/shared/wire"

// An embedded dashboard authenticates with a token its host page hands it
// (Config.Token) rather than a session cookie: each socket sends it in an
// auth frame before its hello, and a fresh one on the open socket, which the
// relay then keeps open past the old token's expiry.

// awaitingTokenLocked reports whether the client has no token to dial with yet.
func (c *Client) awaitingTokenLocked() bool {
	return c.cfg.Token != nil && c.cfg.Token() == ""
}

// sendToken sends the current token on sock, if the client uses tokens.
func (c *Client) sendToken(sock Socket) {
	if c.cfg.Token == nil || sock == nil {
		return
	}
	tok := c.cfg.Token()
	if tok == "" {
		return
	}
	if f, err := wire.NewFrame(wire.TypeAuth, wire.Auth{Token: tok}); err == nil {
		if b, err := wire.Encode(f); err == nil {
			_ = sock.Send(string(b)) // a failed send ends in Closed
		}
	}
}

// Reauth tells the client that Config.Token returns a new token. An open
// socket gets it at once and stays open; a client that was signed out (its
// token expired) or had no token yet connects with it. A socket still
// opening sends it when it opens.
func (c *Client) Reauth() {
	c.mu.Lock()
	if !c.started || c.awaitingTokenLocked() {
		c.mu.Unlock()
		return
	}
	sock := c.sock
	switch {
	case c.status == StatusSignedOut:
		c.status = StatusConnecting
		c.gen++
		c.noToken = false
	case c.noToken:
		c.noToken = false
	default:
		// An open socket takes the token now; one still opening fails to
		// send it and sends it when it opens, as the next one will.
		c.mu.Unlock()
		c.sendToken(sock)
		return
	}
	gen := c.gen
	c.mu.Unlock()
	c.cfg.OnChange()
	c.dial(gen)
}
