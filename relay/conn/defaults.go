package conn

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/schema"
)

// AcceptDefaults is an [Asker] for a program with no person to ask: it
// accepts every form with the defaults of its schema ([schema.Form.Defaults]),
// declines every URL and rejects every sampling request. It answers the MCP
// conformance scenario elicitation-sep1034-client-defaults.
type AcceptDefaults struct{}

// Elicit implements [Asker].
func (AcceptDefaults) Elicit(_ context.Context, p *mcp.ElicitParams, _ Origin) (Answer, error) {
	if elicitMode(p) != modeForm {
		return Answer{Result: &mcp.ElicitResult{Action: actionDecline}}, nil
	}
	raw := []byte(`{"type":"object"}`) // a form without fields: a confirmation
	if p.RequestedSchema != nil {
		var err error
		if raw, err = json.Marshal(p.RequestedSchema); err != nil {
			return Answer{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "requestedSchema: " + err.Error()}
		}
	}
	form, err := schema.Parse(raw)
	if err != nil {
		return Answer{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the requested schema is not supported: " + err.Error()}
	}
	return Answer{Result: &mcp.ElicitResult{Action: actionAccept, Content: form.Defaults()}}, nil
}

// Sample implements [Asker]: nobody writes the message.
func (AcceptDefaults) Sample(context.Context, *mcp.CreateMessageWithToolsParams, Origin) (*mcp.CreateMessageWithToolsResult, error) {
	return nil, &jsonrpc.Error{Code: RPCUserRejected, Message: "User rejected sampling request"}
}

// Complete implements [Asker]; there is nothing to complete.
func (AcceptDefaults) Complete(string) {}
