package e2e

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/appsfixture"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// TestAppsThroughTheGateway is an agent that renders Apps, a go-sdk client
// declaring the extension: on /mcp a tool keeps its _meta.ui with the
// aggregated resource URI ("switchboard-<id>+<uri>"), which it reads through
// the relay with the view's declared CSP; on /mcp/s/<id> the URI stays the
// server's; tools for the app only are offered on neither.
func TestAppsThroughTheGateway(t *testing.T) {
	r := startRelay(t)
	fx := appsfixture.Start(t)
	s, _ := r.openSocket(t, r.sessionCookie(t))
	id := s.addServer("Hostile apps", fx.URL())
	s.waitServerState(id, wire.StateReady)
	key := newAgentKey(t, r)
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(wire.AppsExtension, map[string]any{"mimeTypes": []string{wire.AppMIMEType}})

	for _, ep := range []struct {
		path      string
		tool, uri func(string) string // the names the endpoint gives
	}{
		{gateway.Path, func(n string) string { return gateway.ToolName(id, n) }, func(u string) string { return "switchboard-" + id + "+" + u }},
		{gateway.ServerPath + id, func(n string) string { return n }, func(u string) string { return u }},
	} {
		t.Run(ep.path, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "apps-agent", Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).
				Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.URL() + ep.path, HTTPClient: &http.Client{Transport: &recorder{key: key}}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			ui := map[string]any{}
			for _, tool := range tools.Tools {
				ui[tool.Name] = tool.Meta["ui"]
			}
			want := map[string]any{}
			for _, a := range appsfixture.Attacks {
				want[ep.tool(a)] = map[string]any{"resourceUri": ep.uri(appsfixture.URI(a))}
			}
			if !reflect.DeepEqual(ui, want) {
				t.Errorf("tools and their _meta.ui: %v, want %v", ui, want)
			}
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ep.uri(appsfixture.URI(appsfixture.FetchDeclared))})
			if err != nil {
				t.Fatalf("read the view: %v", err)
			}
			c := res.Contents[0]
			csp := map[string]any{"csp": map[string]any{"connectDomains": []any{fx.ProbeOrigin()}}}
			if c.MIMEType != wire.AppMIMEType || c.Text == "" || !reflect.DeepEqual(c.Meta["ui"], csp) {
				t.Errorf("the view read as %s with _meta %v, %d bytes", c.MIMEType, c.Meta, len(c.Text))
			}
		})
	}
}
