package hub

import (
	"encoding/json"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// reauth is the outcome of an auth frame sent on an open socket.
type reauth struct {
	expires time.Time // the new token's expiry, when it was accepted
	refused string    // why the socket must close: a token of another user
}

// readReauth checks an auth frame that arrives after the hello: an embedded
// dashboard hands the fresh token its host gave it before the old one
// expires, and the socket lives on until the new expiry. A token that does
// not verify is answered with an error frame and changes nothing (the old
// one still holds, until it expires); a valid token of another user ends
// the socket, since a socket never changes hands.
func (h *Hub) readReauth(f wire.Frame, user string, sub replier) (reauth, bool) {
	var a wire.Auth
	if err := json.Unmarshal(f.Data, &a); err != nil || a.Token == "" {
		sub.Reply(wire.ErrorFrame("", wire.NewError(wire.CodeUnauthorized, "an auth frame carries a token")))
		return reauth{}, false
	}
	claims, err := h.verifier.Verify(a.Token)
	if err == nil && !claims.Expires.After(h.now()) {
		err = authn.ErrTokenExpired
	}
	if err != nil {
		h.logger.Info("websocket token refresh refused", "user", user, "err", err)
		sub.Reply(wire.ErrorFrame("", wire.NewError(wire.CodeUnauthorized, "the fresh token was refused: "+err.Error())))
		return reauth{}, false
	}
	if claims.User != user || claims.Agent != nil {
		h.logger.Warn("websocket token refresh for another user", "user", user)
		return reauth{refused: "token of another user"}, true
	}
	return reauth{expires: claims.Expires}, true
}

// replier answers a dashboard outside any op: the session's subscriber.
type replier interface{ Reply(wire.Frame) }
