package conn

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Asking a person. With an [Asker] in its [Config], a connection
// advertises the kinds of asks of [Config.Modes] and hands the asker, in
// the go-sdk's types, what a server asks of a person:
//   - elicitation/create requests ([FromRequest]), answered when the asker
//     answers, and withdrawn (the asker's context ends) when the server
//     cancels its request or the session ends;
//   - input requests of the 2026-07-28 protocol ([FromInput]), which the
//     go-sdk fulfils through the same handlers;
//   - the URL elicitations of a -32042 error ([FromURLRequired]), after
//     which the operation is retried (urlrequired.go);
//   - sampling/createMessage requests, with tools.
//
// The connection keeps what is protocol: the modes it advertised (a request
// in another mode gets invalid params, -32602, without reaching the
// asker), the -32042 retries, and the scope of each ask: the server's
// request, the session, and the operation it is attributed to ([OperationOf],
// caller.go). What the person sees and how their answer becomes the
// server's (sanitizing, broker outcomes as JSON-RPC errors) is the
// asker's.

// AskModes are the kinds of asks a connection advertises. An elicitation
// in another mode is answered with the spec's invalid-params error
// (-32602); without Sampling the go-sdk refuses sampling requests.
type AskModes struct {
	Form     bool // fill in a form
	URL      bool // consent to open a URL
	Sampling bool // write a message (sampling/createMessage, with tools)
}

// AllAskModes advertises both elicitation modes and sampling.
var AllAskModes = AskModes{Form: true, URL: true, Sampling: true}

// Elicitation modes, as the protocol names them.
const (
	modeForm = "form"
	modeURL  = "url"
)

// allows reports whether elicitation mode is advertised.
func (m AskModes) allows(mode string) bool {
	return (mode == modeForm && m.Form) || (mode == modeURL && m.URL)
}

// Origin says how a server's request for a person reached the connection.
type Origin int

// Origins of a request for a person.
const (
	FromRequest     Origin = iota // the server's elicitation/create or sampling/createMessage request
	FromInput                     // an input request of a 2026-07-28 result
	FromURLRequired               // a URL elicitation a -32042 error requires before a retry
)

// JSON-RPC error codes an [Asker] answers a sampling request with, besides
// the standard ones.
const (
	RPCUserRejected   int64 = -1     // the spec's "user rejected sampling request"
	RPCRequestTimeout int64 = -32001 // nobody answered in time
)

// Answer is an asker's answer to an elicitation.
type Answer struct {
	// Result is the server's answer.
	Result *mcp.ElicitResult
	// Wait, when a URL elicitation was accepted, returns nil once the
	// interaction at the URL is complete, or an error when it was abandoned
	// or ctx ended. Nil means complete already. The connection waits with
	// it while the session lives, and before it retries after a -32042.
	Wait func(ctx context.Context) error
}

// Asker puts a server's requests for a person before that person: the
// user's dashboards (relay/session, through its broker), or a program that
// answers by itself ([AcceptDefaults]). Its methods return ctx's error when
// ctx ends first: the request was withdrawn. A *jsonrpc.Error is the
// server's answer as it is.
type Asker interface {
	// Elicit asks what p asks, in an advertised mode. A form's
	// RequestedSchema is a json.RawMessage in the server's key order (nil
	// for none). For FromURLRequired a *jsonrpc.Error refuses the URL,
	// saying why in its message.
	Elicit(ctx context.Context, p *mcp.ElicitParams, from Origin) (Answer, error)
	// Sample asks for the message that p, from FromRequest or FromInput,
	// asks for.
	Sample(ctx context.Context, p *mcp.CreateMessageWithToolsParams, from Origin) (*mcp.CreateMessageWithToolsResult, error)
	// Complete reports the server's notifications/elicitation/complete,
	// with the elicitation's id as the server sent it.
	Complete(elicitationID string)
}
