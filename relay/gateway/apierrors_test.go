package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestToolAPIAnswersAServersJSONRPCErrorWithItsCode(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "refuser", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "refuse", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: -32001, Message: "quota exceeded"}
		})
	up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(func() { // after the relay's connection closed
		up.CloseClientConnections()
		up.Close()
	})

	r := newRelay(t, broker.Config{})
	r.add("alice", "refuser", up.URL)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "script", KeyID: "key1"})
	mux := http.NewServeMux()
	(&gateway.API{Auth: r.keys, Sessions: r.m}).Register(mux)
	api := httptest.NewServer(mux)
	defer api.Close()

	do := func(method, path, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, api.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer k1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := do(http.MethodGet, gateway.ToolsPath, "")
	var list []gateway.Function
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list) != 1 {
		t.Fatalf("tools %+v", list)
	}
	resp = do(http.MethodPost, gateway.ToolCallPath, `{"name":"`+list[0].Function.Name+`"}`)
	defer resp.Body.Close()
	var body struct {
		Error wire.Error `json:"error"`
	}
	json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != http.StatusBadGateway || body.Error.Code != wire.CodeProtocol || body.Error.RPCCode != -32001 ||
		body.Error.Message != "the server answered with error -32001: quota exceeded" {
		t.Errorf("status %d, error %+v", resp.StatusCode, body.Error)
	}
}
