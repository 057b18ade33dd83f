package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// taskStatusWords says a task status in words.
var taskStatusWords = map[wire.TaskStatus]string{
	wire.TaskWorking:       "working",
	wire.TaskInputRequired: "waiting for your answer",
	wire.TaskCompleted:     "completed",
	wire.TaskFailed:        "failed",
	wire.TaskCancelled:     "cancelled",
}

// renderCallTask shows the MCP task a call runs as: its status and the
// server's status message.
func renderCallTask(t *wire.CallTask) app.UI {
	if t == nil {
		return app.Span().Class("call-task").Hidden(true)
	}
	words := taskStatusWords[t.Status]
	if words == "" {
		words = string(t.Status)
	}
	text := "Task " + words
	if t.StatusMessage != "" {
		text += ": " + t.StatusMessage
	}
	return app.P().Class("call-task").DataSet("task-status", t.Status).Text(text)
}

// renderToolBadge marks, in the list, a tool that runs as a task or that
// cannot be called.
func renderToolBadge(t wire.Tool) app.UI {
	switch {
	case t.Uncallable != "":
		return app.Span().Class("tool-badge", "is-uncallable").Text("cannot be called")
	case t.TaskSupport == wire.TaskSupportRequired || t.TaskSupport == wire.TaskSupportOptional:
		return app.Span().Class("tool-badge", "is-task").Text("task")
	}
	return app.Span().Class("tool-badge").Hidden(true)
}

// renderTaskSupport says whether a tool runs as a task, and why it cannot
// be called when the relay cannot call it.
func renderTaskSupport(t wire.Tool) app.UI {
	switch {
	case t.Uncallable != "":
		return app.P().Class("tool-uncallable", "sb-error").Text("Cannot be called: " + t.Uncallable + ".")
	case t.TaskSupport == wire.TaskSupportRequired:
		return app.P().Class("tool-task", "sb-note").Text("Runs as an MCP task: its status shows while it works, and it survives a reload.")
	case t.TaskSupport == wire.TaskSupportOptional:
		return app.P().Class("tool-task", "sb-note").Text("Runs as an MCP task, which the server offers for this tool.")
	}
	return app.P().Class("tool-task").Hidden(true)
}
