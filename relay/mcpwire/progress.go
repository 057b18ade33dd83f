package mcpwire

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Progress is a server's progress notification as a dashboard shows it:
// its message on one line.
func Progress(p *mcp.ProgressNotificationParams) wire.Progress {
	return wire.Progress{Progress: p.Progress, Total: p.Total, Message: line(p.Message, maxProgressRunes)}
}

// CallTask is a task of a tool call (MCP tasks, which the go-sdk does not
// model: id, status and status message as the server sent them) as a
// dashboard shows it. The status stays the server's word, sanitized, which
// may be none of wire's Task* statuses.
func CallTask(id string, status wire.TaskStatus, message string) wire.CallTask {
	return wire.CallTask{ID: line(id, maxKeyRunes), Status: wire.TaskStatus(line(string(status), maxKeyRunes)), StatusMessage: line(message, maxProgressRunes)}
}
