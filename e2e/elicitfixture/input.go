package elicitfixture

import (
	"github.com/switchboard-mcp/switchboard/shared/wire"

	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TermsURL is the URL input_pair asks to open.
const TermsURL = "https://example.com/terms"

// addInputTools adds the tools of the stateless server, which ask through
// input requests (2026-07-28) and report the responses they got back.
func (s *Server) addInputTools() {
	profile := formNamed("strings")
	s.mcp.AddTool(&mcp.Tool{Name: "input_form", Description: "Asks for a form through an input request.", InputSchema: noArgs},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if r, ok := req.Params.InputResponses["profile"].(*mcp.ElicitResult); ok {
				return outcome(r, nil), nil
			}
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{"profile": &mcp.ElicitParams{Message: profile.Message, RequestedSchema: profile.Schema}},
				RequestState:  "profile",
			}, nil
		})
	plan := formNamed("titled")
	s.mcp.AddTool(&mcp.Tool{Name: "input_pair", Description: "Asks for a plan and consent to open the terms at once.", InputSchema: noArgs},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			p, pok := req.Params.InputResponses["plan"].(*mcp.ElicitResult)
			t, tok := req.Params.InputResponses["terms"].(*mcp.ElicitResult)
			if pok && tok {
				return jsonResult(map[string]Outcome{
					"plan":  {Action: wire.Action(p.Action), Content: p.Content},
					"terms": {Action: wire.Action(t.Action), Content: t.Content},
				}), nil
			}
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{
					"plan":  &mcp.ElicitParams{Message: plan.Message, RequestedSchema: plan.Schema},
					"terms": &mcp.ElicitParams{Mode: "url", Message: "Read and accept the terms.", URL: TermsURL, ElicitationID: "terms"},
				},
				RequestState: "pair",
			}, nil
		})
}
