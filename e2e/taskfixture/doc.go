// Package taskfixture is an MCP server (go-sdk) with tools that run as MCP
// tasks (2025-11-25, experimental), for tests of the relay's task client.
//
// The go-sdk has no server support for tasks, so the fixture adds it around
// the SDK: the HTTP handler turns a task-augmented tools/call into the
// custom method [MethodCreate] before the SDK reads it, answers tasks/get,
// tasks/result and tasks/cancel as custom methods, and adds the tasks
// capability and each tool's execution.taskSupport to the initialize and
// tools/list answers it writes. Tasks belong to the
// fixture, not to an MCP session, so a client that reconnects, or a relay
// that restarts, finds its tasks again.
package taskfixture
