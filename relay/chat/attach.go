package chat

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// maxAttachText caps the text one attachment gives the model.
const maxAttachText = 64 << 10

// resolveAttachments reads the turn's prompts and resources through the
// servers' owners, as the person's own calls, and shows what the model is
// given (or why it could not be read) on the message.
func (rn *run) resolveAttachments() {
	rn.mu.Lock()
	atts := append([]wire.ChatAttachment(nil), rn.turn.Attachments...)
	rn.mu.Unlock()
	if len(atts) == 0 {
		return
	}
	for i := range atts {
		text, err := rn.readAttachment(atts[i])
		atts[i].Text, atts[i].Error = "", ""
		if err != nil {
			atts[i].Error = callError(err)
			continue
		}
		if len(text) > maxAttachText {
			text = cut(text, maxAttachText) + "\n[Cut.]"
		}
		atts[i].Text = text
	}
	rn.mu.Lock()
	rn.turn.Attachments = atts
	rn.publishLocked(rn.turnChange())
	rn.mu.Unlock()
	rn.save()
}

// readAttachment reads one attachment as text.
func (rn *run) readAttachment(a wire.ChatAttachment) (string, error) {
	o, ok := rn.r.session(rn.user).Server(a.Server)
	if !ok {
		return "", wire.NewError(wire.CodeNotFound, "no such server")
	}
	var c session.Caller // the person's own read, shown with their calls
	switch a.Kind {
	case wire.AttachPrompt:
		res, err := o.GetPrompt(rn.ctx, c, &mcp.GetPromptParams{Name: a.Name, Arguments: a.Arguments})
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, m := range res.Messages {
			fmt.Fprintf(&b, "%s: %s\n", m.Role, contentText(m.Content))
		}
		return b.String(), nil
	case wire.AttachResource:
		res, err := o.ReadResource(rn.ctx, c, &mcp.ReadResourceParams{URI: a.URI})
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, rc := range res.Contents {
			if rc.Text != "" {
				b.WriteString(rc.Text)
				b.WriteByte('\n')
			} else {
				fmt.Fprintf(&b, "[%s: %d bytes of %s, not text]\n", rc.URI, len(rc.Blob), rc.MIMEType)
			}
		}
		return b.String(), nil
	}
	return "", wire.NewError(wire.CodeBadRequest, "unknown attachment")
}

// contentText is a prompt message's content as text.
func contentText(c mcp.Content) string {
	switch v := c.(type) {
	case *mcp.TextContent:
		return v.Text
	case *mcp.EmbeddedResource:
		if v.Resource != nil && v.Resource.Text != "" {
			return v.Resource.Text
		}
		return "[an embedded resource, not text]"
	case *mcp.ImageContent:
		return "[an image]"
	case *mcp.AudioContent:
		return "[a sound]"
	case *mcp.ResourceLink:
		return "[resource link " + v.URI + "]"
	}
	return ""
}

// checkAttachments refuses attachments the turn cannot read.
func checkAttachments(atts []wire.ChatAttachment) error {
	if len(atts) > wire.MaxChatAttach {
		return wire.NewError(wire.CodeBadRequest, fmt.Sprintf("at most %d attachments", wire.MaxChatAttach))
	}
	for _, a := range atts {
		switch {
		case a.Server == "":
			return wire.NewError(wire.CodeBadRequest, "an attachment names no server")
		case a.Kind == wire.AttachPrompt && a.Name != "", a.Kind == wire.AttachResource && a.URI != "":
		default:
			return wire.NewError(wire.CodeBadRequest, "an attachment is a prompt with a name or a resource with a URI")
		}
	}
	return nil
}

// waitForServers waits, a few seconds at most, for the conversation's
// servers that are still connecting, and shows which.
func (rn *run) waitForServers() error {
	s := rn.r.session(rn.user)
	changed := make(chan struct{}, 1)
	stop := s.Watch(func(string) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer stop()
	deadline, cancel := context.WithTimeout(rn.ctx, rn.r.cfg.ServerWait)
	defer cancel()
	var shown []string
	defer func() {
		if shown != nil {
			rn.setWaiting(nil)
		}
	}()
	for {
		waiting := rn.connecting(s.Servers())
		if len(waiting) == 0 {
			return nil
		}
		if !slices.Equal(waiting, shown) {
			rn.setWaiting(waiting)
			shown = waiting
		}
		select {
		case <-changed:
		case <-deadline.Done():
			if err := context.Cause(rn.ctx); err != nil {
				return err
			}
			return nil // go on with the servers that are ready
		}
	}
}

// connecting names the conversation's servers that are on their way to
// ready.
func (rn *run) connecting(servers []wire.Server) []string {
	var out []string
	for _, srv := range servers {
		switch srv.State {
		case wire.StateConnecting, wire.StateConnected, wire.StateDiscovering:
			if !srv.Disconnected && chosenServer(rn.chat, srv.ID) {
				out = append(out, srv.Name)
			}
		}
	}
	return out
}
