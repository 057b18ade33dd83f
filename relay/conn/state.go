package conn

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/readalong"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// State is a connection's whole state as it reports it: where it is in its
// life, what it keeps for the relay (OAuth status, subscriptions), what the
// server said of itself and what it listed, as the go-sdk decoded them.
// Nothing in it is sanitized: it is the server's untrusted data, for an
// edge that converts it (relay/mcpwire) or passes it on (an agent's MCP).
// A State is not modified after it was reported.
type State struct {
	State wire.ServerState
	// Error says, sanitized and without secrets, why the last attempt or
	// session failed; set when State is failed.
	Error string
	// TransportInUse is the transport found, with transport auto.
	TransportInUse wire.Transport
	Auth           *wire.AuthState // OAuth status, with an [Authorizer]
	// Subscriptions are the person's resource subscriptions, by URI.
	Subscriptions []wire.Subscription
	// Client is what the connection advertised to the server.
	Client *mcp.ClientCapabilities
	// Init is the server's initialize result (identity, capabilities,
	// instructions, protocol version) of the last session; nil before one.
	Init *mcp.InitializeResult
	// Tasks is the tasks capability the server declared, which the go-sdk
	// does not decode; nil when it declared none.
	Tasks *TaskCapability
	// Lists are the lists of the last successful discovery; nil before one.
	// They stay while the connection is failed or reconnecting: State
	// tells whether they can be used.
	Lists *Lists
}

// TaskCapability is the tasks capability (MCP 2025-11-25) a server
// declared.
type TaskCapability = readalong.TaskCapability

// Lists are a server's lists, each capped and without repeated keys, as the
// go-sdk decoded them. A discovery replaces them with new Lists and never
// modifies reported ones, so that a receiver can tell by the pointer that
// they did not change. A tool's input and output schemas are a
// json.RawMessage in the server's key order when that was read along.
type Lists struct {
	Tools     []*mcp.Tool
	Prompts   []*mcp.Prompt
	Resources []*mcp.Resource
	Templates []*mcp.ResourceTemplate
	// TaskSupport is each listed tool's execution.taskSupport as the server
	// sent it (the go-sdk drops it), by name: unsanitized, maybe none of
	// wire's TaskSupport* values. It and Uncallable are replaced with Tools.
	TaskSupport map[string]wire.TaskSupport
	// Uncallable says why the connection does not call a tool, by name: one
	// that runs only as a task on a server that did not declare
	// task-augmented tools/call.
	Uncallable map[string]string
}
