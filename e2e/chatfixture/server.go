package chatfixture

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
)

// Tool names.
const (
	ToolAccount = "account_lookup"
	ToolWeather = "city_weather"
	ToolPurge   = "purge_reports"
)

// What account_lookup asks and answers.
const (
	AskMessage = "Which account should I look up?"
	AskField   = "account"
	AskTitle   = "Account to look up"
	// AskSchema is the form's schema: one required text field.
	AskSchema = `{"type":"object","properties":{"` + AskField + `":{"type":"string","title":"` + AskTitle +
		`","description":"The account's reference, as on an invoice."}},"required":["` + AskField + `"]}`
	// AccountRecord is account_lookup's text once the person answered.
	AccountRecord = "Account record 4711: three open invoices."
	// NoAccount is its text when the person did not answer.
	NoAccount = "The person chose no account."
	// Purged is purge_reports' text.
	Purged = "Every report was purged."
)

// Weather is city_weather's text for city.
func Weather(city string) string { return fmt.Sprintf("Weather in %s: sunny, 21 degrees.", city) }

// Server is a running chat fixture. Its methods are safe for concurrent use.
type Server struct {
	*fixture.Loopback

	mu      sync.Mutex
	answers []map[string]any // the content of each accepted answer, in order
	purges  int
}

// Start starts a fixture on a free loopback port and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{}
	s.Loopback = fixture.NewLoopback(s.newMCPServer)
	fixture.Serve(t, s.Loopback)
	return s
}

// Answers returns the content of every accepted answer to account_lookup's
// question, in order.
func (s *Server) Answers() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.answers...)
}

// Purges is how many times purge_reports ran.
func (s *Server) Purges() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.purges
}

// weatherArgs are city_weather's arguments.
type weatherArgs struct {
	City string `json:"city" jsonschema:"the city"`
}

func (s *Server) newMCPServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "chatfixture", Version: "1.0.0"}, nil)
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	destructive := true
	srv.AddTool(&mcp.Tool{Name: ToolAccount, Description: "Looks up the account the person names.",
		InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: readOnly}, s.account)
	mcp.AddTool(srv, &mcp.Tool{Name: ToolWeather, Description: "The weather of a city.", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in weatherArgs) (*mcp.CallToolResult, any, error) {
			return text(Weather(in.City)), nil, nil
		})
	srv.AddTool(&mcp.Tool{Name: ToolPurge, Description: "Deletes every report.", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.mu.Lock()
			s.purges++
			s.mu.Unlock()
			return text(Purged), nil
		})
	return srv
}

// account asks which account, and answers without repeating the answer.
func (s *Server) account(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: AskMessage, RequestedSchema: json.RawMessage(AskSchema)})
	if err != nil {
		return nil, err
	}
	if res.Action != "accept" {
		return text(NoAccount), nil
	}
	s.mu.Lock()
	s.answers = append(s.answers, res.Content)
	s.mu.Unlock()
	return text(AccountRecord), nil
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
