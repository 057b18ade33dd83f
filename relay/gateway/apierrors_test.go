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

// A person may choose a server id that holds "__"; the tool API finds its
// tools by the names it lists, as /mcp does, not by cutting the name at
// the first "__".
func TestToolAPICallsAToolOfAServerWhoseIDHoldsTheSeparator(t *testing.T) {
	up := startUpstream(t)
	r := newRelay(t, broker.Config{})
	res, err := r.m.Session("alice").Add(context.Background(), wire.AddServerArgs{Name: "files", URL: up.url, ID: "my__files"})
	if err != nil || res.ID != "my__files" {
		t.Fatalf("add with the id my__files: %+v, %v", res, err)
	}
	r.waitReady("alice", res.ID)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "script", KeyID: "key1"})
	do := func(method, path, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, r.url+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer k1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := do(http.MethodGet, gateway.ToolsPath+"?server=my__files", "")
	var list []gateway.Function
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	name := ""
	for _, f := range list {
		if strings.HasSuffix(f.Function.Name, "__echo") {
			name = f.Function.Name
		}
	}
	if name != "my__files__echo" {
		t.Fatalf("the tool API lists %+v, want my__files__echo among them", list)
	}
	resp = do(http.MethodPost, gateway.ToolCallPath, `{"name":"my__files__echo","arguments":{"a":7}}`)
	defer resp.Body.Close()
	var out wire.CallToolResult
	json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusOK || out.IsError || len(out.Content) != 1 || out.Content[0].Text != `{"a":7}` {
		t.Errorf("calling my__files__echo: status %d, result %+v", resp.StatusCode, out)
	}
}

// Each refusal of a call's body says what is wrong with it, with the status
// that fits; a page of another origin is refused as such.
func TestToolAPIRefusalsSayWhatIsWrong(t *testing.T) {
	r := newRelay(t, broker.Config{})
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "script", KeyID: "key1"})
	mux := http.NewServeMux()
	(&gateway.API{Auth: r.keys, Sessions: r.m}).Register(mux)
	api := httptest.NewServer(mux)
	defer api.Close()
	for _, tc := range []struct {
		name, body, origin string
		status             int
		code               wire.Code
		message            string
	}{
		{"10 MB", `{"name":"x","arguments":{"a":"` + strings.Repeat("a", 10<<20) + `"}}`, "", http.StatusRequestEntityTooLarge, wire.CodeTooLarge, "the body is over 1048576 bytes (1 MiB)"},
		{"nested too deep", strings.Repeat("[", 20000) + strings.Repeat("]", 20000), "", http.StatusBadRequest, wire.CodeBadRequest, "the body is nested too deeply"},
		{"not JSON", `{"name":`, "", http.StatusBadRequest, wire.CodeBadRequest, "the body is not JSON"},
		{"not the object", `["x"]`, "", http.StatusBadRequest, wire.CodeBadRequest, "the body must be a JSON object {name, arguments}"},
		{"another origin", `{"name":"x"}`, "https://elsewhere.example", http.StatusForbidden, "forbidden_origin", "this origin may not use the tool API"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, api.URL+gateway.ToolCallPath, strings.NewReader(tc.body))
			req.Header.Set("Authorization", "Bearer k1")
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Error wire.Error `json:"error"`
			}
			json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != tc.status || body.Error.Code != tc.code || body.Error.Message != tc.message {
				t.Errorf("%d %+v, want %d %s %q", resp.StatusCode, body.Error, tc.status, tc.code, tc.message)
			}
		})
	}
}
