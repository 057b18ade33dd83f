package samplingfixture

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// noArgs is the input schema of a tool without arguments.
var noArgs = map[string]any{"type": "object"}

// addTools adds the tools of the stateful server.
func (s *Server) addTools() {
	s.mcp.AddTool(&mcp.Tool{Name: "sample_text", Description: "Asks for a haiku about a picture.", InputSchema: noArgs},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var o Outcome
			res, err := req.Session.CreateMessageWithTools(ctx, textRequest())
			if err != nil {
				o.failed(err)
			} else {
				o.took(res)
			}
			return o.result(), nil
		})
	s.mcp.AddTool(&mcp.Tool{Name: "sample_tools", Description: "Asks about the weather, with get_weather offered.", InputSchema: noArgs},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var o Outcome
			history := firstQuestion()
			for range MaxRounds {
				res, err := req.Session.CreateMessageWithTools(ctx, toolsRequest(history))
				if err != nil {
					o.failed(err)
					break
				}
				o.took(res)
				var more bool
				if history, more = answerCalls(history, res); !more {
					break
				}
			}
			return o.result(), nil
		})
	s.mcp.AddTool(&mcp.Tool{Name: "sample_everything", Description: "Samples as go-sdk's everything example does.", InputSchema: noArgs},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var o Outcome
			res, err := req.Session.CreateMessage(ctx, new(mcp.CreateMessageParams))
			if err != nil {
				o.failed(err)
			} else {
				o.took(&mcp.CreateMessageWithToolsResult{Model: res.Model, StopReason: res.StopReason, Content: []mcp.Content{res.Content}})
			}
			return o.result(), nil
		})
}

// inputState is what the stateless server keeps between rounds, in the
// request state: the conversation and the outcome so far.
type inputState struct {
	History []*mcp.SamplingMessageV2 `json:"history"`
	Outcome Outcome                  `json:"outcome"`
}

// addInputTools adds the tools of the stateless server, which ask through
// input requests (2026-07-28).
func (s *Server) addInputTools() {
	s.mcp.AddTool(&mcp.Tool{Name: "sample_text", Description: "Asks for a haiku about a picture.", InputSchema: noArgs},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if res, ok := req.Params.InputResponses["reply"].(*mcp.CreateMessageWithToolsResult); ok {
				var o Outcome
				o.took(res)
				return o.result(), nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"reply": textRequest()}, RequestState: "text"}, nil
		})
	s.mcp.AddTool(&mcp.Tool{Name: "sample_tools", Description: "Asks about the weather, with get_weather offered.", InputSchema: noArgs},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			st := inputState{History: firstQuestion()}
			if req.Params.RequestState != "" {
				if err := json.Unmarshal([]byte(req.Params.RequestState), &st); err != nil {
					return nil, err
				}
			}
			if res, ok := req.Params.InputResponses["reply"].(*mcp.CreateMessageWithToolsResult); ok {
				st.Outcome.took(res)
				var more bool
				if st.History, more = answerCalls(st.History, res); !more || st.Outcome.Rounds >= MaxRounds {
					return st.Outcome.result(), nil
				}
			}
			state, err := json.Marshal(st)
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"reply": toolsRequest(st.History)}, RequestState: string(state)}, nil
		})
}
