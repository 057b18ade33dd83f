package conn

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Notifications a server may send, which the connection notes as activity
// before the go-sdk handles them.
const (
	notifyToolsChanged     = "notifications/tools/list_changed"
	notifyPromptsChanged   = "notifications/prompts/list_changed"
	notifyResourcesChanged = "notifications/resources/list_changed"
	notifyResourceUpdated  = "notifications/resources/updated"
	notifyProgress         = "notifications/progress"
	notifyCancelled        = "notifications/cancelled"
	notifyElicitComplete   = "notifications/elicitation/complete"
)

// isNotification reports whether method names a notification.
func isNotification(method string) bool { return strings.HasPrefix(method, "notifications/") }

// noting is a receiving middleware that tells the journal about each
// notification of the server it knows, in words.
func (c *Conn) noting(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if kind, text, ok := activityOf(method, req.GetParams()); ok {
			c.cfg.Journal.Activity(kind, text)
		}
		return next(ctx, method, req)
	}
}

// activityOf describes a notification; ok is false for any other message.
func activityOf(method string, params mcp.Params) (kind wire.ActivityKind, text string, ok bool) {
	switch method {
	case notifyToolsChanged:
		return wire.ActivityToolsChanged, "The list of tools changed.", true
	case notifyPromptsChanged:
		return wire.ActivityPromptsChanged, "The list of prompts changed.", true
	case notifyResourcesChanged:
		return wire.ActivityResourcesChanged, "The list of resources changed.", true
	case notifyResourceUpdated:
		p, _ := params.(*mcp.ResourceUpdatedNotificationParams)
		if p == nil {
			return "", "", false
		}
		return wire.ActivityResourceUpdated, "Resource updated: " + p.URI, true
	case notifyProgress:
		p, _ := params.(*mcp.ProgressNotificationParams)
		if p == nil {
			return "", "", false
		}
		text := fmt.Sprintf("Progress %g", p.Progress)
		if p.Total > 0 {
			text += fmt.Sprintf(" of %g", p.Total)
		}
		if p.Message != "" {
			text += ": " + p.Message
		}
		return wire.ActivityProgress, text, true
	case notifyCancelled:
		p, _ := params.(*mcp.CancelledParams)
		if p == nil {
			return "", "", false
		}
		text := fmt.Sprintf("The server cancelled request %v", p.RequestID)
		if p.Reason != "" {
			text += ": " + p.Reason
		}
		return wire.ActivityCancelled, text, true
	case notifyElicitComplete:
		p, _ := params.(*mcp.ElicitationCompleteParams)
		if p == nil {
			return "", "", false
		}
		return wire.ActivityElicitComplete, "The server finished the web page interaction " + p.ElicitationID + ".", true
	}
	return "", "", false
}
