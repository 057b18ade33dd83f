package wire

// MCP tasks (2025-11-25): a tool call a server runs as a task reports its
// status until it ends ([CallTask]); a tool says whether it runs as one
// ([Tool.TaskSupport]).

// TaskStatus is where an MCP task is in its life, as its server said. A
// server may send a word that is none of these: it is kept, sanitized.
type TaskStatus string

// Task statuses.
const (
	TaskWorking       TaskStatus = "working"        // the server is at it
	TaskInputRequired TaskStatus = "input_required" // the server waits for an answer (an ask)
	TaskCompleted     TaskStatus = "completed"      // ended with a result
	TaskFailed        TaskStatus = "failed"         // ended without one
	TaskCancelled     TaskStatus = "cancelled"      // ended by a cancel
)

// TaskSupport is a tool's execution.taskSupport: whether it runs as a task.
type TaskSupport string

// Task supports of a tool.
const (
	TaskSupportRequired  TaskSupport = "required"  // only as a task
	TaskSupportOptional  TaskSupport = "optional"  // as a task when the caller asks for one
	TaskSupportForbidden TaskSupport = "forbidden" // never as a task
)
