package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// startAppsUpstream serves an App: "show" renders ui://v/main, which the
// server answers without listing it; "refresh" is for the App only.
func startAppsUpstream(t *testing.T) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "apps", Version: "1"}, nil)
	done := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	}
	srv.AddTool(&mcp.Tool{Name: "show", InputSchema: json.RawMessage(`{"type":"object"}`),
		Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://v/main", "extra": "dropped"}, "ui/resourceUri": "ui://v/old", "other": 1}}, done)
	srv.AddTool(&mcp.Tool{Name: "refresh", InputSchema: json.RawMessage(`{"type":"object"}`),
		Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://v/main", "visibility": []string{"app"}}}}, done)
	srv.AddResource(&mcp.Resource{URI: "note://one", Name: "one"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "note://one", Text: "note"}}}, nil
	})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.ReadResourceRequest); ok && r.Params.URI == "ui://v/main" {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "ui://v/main", MIMEType: wire.AppMIMEType, Text: "<p>view</p>"}}}, nil
			}
			return next(ctx, method, req)
		}
	})
	return serveUpstream(t, srv)
}

// Both endpoints show a tool's _meta.ui as the relay read it (the URI as
// the endpoint names resources), leave out and refuse tools for the App
// only, read unlisted views, and declare the Apps extension.
func TestGatewayShowsAppsAndHidesToolsForTheAppOnly(t *testing.T) {
	r := newRelay(t, broker.Config{})
	id := r.add("alice", "apps", startAppsUpstream(t))
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	for _, ep := range []struct {
		path, show, refresh, uri string
	}{
		{gateway.Path, gateway.ToolName(id, "show"), gateway.ToolName(id, "refresh"), "switchboard-" + id + "+ui://v/main"},
		{gateway.ServerPath + id, "show", "refresh", "ui://v/main"},
	} {
		t.Run(ep.path, func(t *testing.T) {
			a := r.connect("k1", ep.path, eras[0])
			caps := a.cs.InitializeResult().Capabilities
			if want := map[string]any{"mimeTypes": []any{wire.AppMIMEType}}; !reflect.DeepEqual(caps.Extensions[wire.AppsExtension], want) {
				t.Errorf("extensions %v", caps.Extensions)
			}
			tools := a.toolNames(t)
			if _, ok := tools[ep.refresh]; ok || len(tools) != 1 {
				t.Errorf("tools %v, want %s alone", tools, ep.show)
			}
			if show := tools[ep.show]; show == nil || !reflect.DeepEqual(show.Meta, mcp.Meta{"ui": map[string]any{"resourceUri": ep.uri}, "other": float64(1)}) {
				t.Errorf("%s: %+v", ep.show, show)
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			if res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: ep.refresh}); err == nil && !res.IsError {
				t.Errorf("a tool for the App only was called: %s", text(res))
			} else if err != nil && !strings.Contains(err.Error(), "unknown tool") {
				t.Errorf("calling a tool for the App only: %v, want an unknown tool", err)
			}
			res, err := a.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ep.uri})
			if err != nil || res.Contents[0].Text != "<p>view</p>" || res.Contents[0].URI != ep.uri {
				t.Errorf("reading the unlisted view: %+v, %v", res, err)
			}
			if _, err := a.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: strings.Replace(ep.uri, id, "other", 1)}); ep.path == gateway.Path && err == nil {
				t.Error("read a view of a server that is not there")
			}
		})
	}

	req, _ := http.NewRequest(http.MethodGet, r.url+gateway.ToolsPath, nil)
	req.Header.Set("Authorization", "Bearer k1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var list []gateway.Function
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list) != 1 || list[0].Function.Name != gateway.ToolName(id, "show") {
		t.Errorf("/api/tools lists %+v", list)
	}
	req, _ = http.NewRequest(http.MethodPost, r.url+gateway.ToolCallPath, strings.NewReader(`{"name":"`+gateway.ToolName(id, "refresh")+`"}`))
	req.Header.Set("Authorization", "Bearer k1")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("calling a tool for the App only through the API: %d", resp.StatusCode)
	}
}
