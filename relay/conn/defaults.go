package conn

import (
	"context"

	"github.com/switchboard-mcp/switchboard/shared/schema"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// AcceptDefaults is an [Asker] for a program with no person to ask: it
// accepts every form with the defaults of its schema ([schema.Form.Defaults])
// and declines every URL. It answers the MCP conformance scenario
// elicitation-sep1034-client-defaults.
type AcceptDefaults struct{}

// Ask implements [Asker].
func (AcceptDefaults) Ask(_ context.Context, a wire.Ask) (Answer, error) {
	if a.Kind != wire.AskForm {
		return Answer{Action: wire.ActionDecline}, nil
	}
	form, err := schema.Parse(a.Schema)
	if err != nil {
		return Answer{}, wire.NewError(wire.CodeBadRequest, "the requested schema is not supported: "+err.Error())
	}
	return Answer{Action: wire.ActionAccept, Content: form.Defaults()}, nil
}

// Complete implements [Asker]; there is nothing to complete.
func (AcceptDefaults) Complete(string) {}
