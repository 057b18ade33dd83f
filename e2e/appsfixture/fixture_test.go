package appsfixture

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func connect(t *testing.T, s *Server) (context.Context, *mcp.ClientSession) {
	t.Helper()
	// Generous: reading the 50 MB view takes long on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.URL()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return ctx, cs
}

// TestToolsNameTheirViews lists the tools: each attack names its view, and
// report and tick are for the app only.
func TestToolsNameTheirViews(t *testing.T) {
	s := Start(t)
	ctx, cs := connect(t, s)
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	ui := map[string]any{}
	for _, tool := range res.Tools {
		ui[tool.Name] = tool.Meta["ui"]
	}
	want := map[string]any{
		ToolReport: map[string]any{"visibility": []any{"app"}},
		ToolTick:   map[string]any{"visibility": []any{"app"}},
	}
	for _, a := range Attacks {
		want[a] = map[string]any{"resourceUri": URI(a)}
	}
	if !reflect.DeepEqual(ui, want) {
		t.Errorf("tools' _meta.ui = %v, want %v", ui, want)
	}
}

// TestViewsRead reads every view: HTML of the Apps type that speaks the
// protocol by hand, the huge one of 50 MB, and only fetch_declared declares
// the probe server, and only ask_permissions asks for browser features.
func TestViewsRead(t *testing.T) {
	s := Start(t)
	ctx, cs := connect(t, s)
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Resources) != len(Attacks) {
		t.Errorf("%d resources listed, want %d", len(list.Resources), len(Attacks))
	}
	for _, a := range Attacks {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: URI(a)})
		if err != nil {
			t.Fatalf("read %s: %v", a, err)
		}
		c := res.Contents[0]
		if c.MIMEType != MIMEType || !strings.Contains(c.Text, `"ui/initialize"`) || !strings.Contains(c.Text, "async function attack()") {
			t.Errorf("%s: %s, %.200q", a, c.MIMEType, c.Text)
		}
		if strings.Count(c.Text, "</script>") != 1 {
			t.Errorf("%s: %d </script>, want 1", a, strings.Count(c.Text, "</script>"))
		}
		if a == HugeDocument && len(c.Text) < HugeSize {
			t.Errorf("the huge view is %d bytes, want at least %d", len(c.Text), HugeSize)
		}
		var declared any
		switch a {
		case FetchDeclared:
			declared = map[string]any{"csp": map[string]any{"connectDomains": []any{s.ProbeOrigin()}}}
		case AskPermissions:
			declared = map[string]any{"permissions": AskedPermissions}
		}
		if got := c.Meta["ui"]; !reflect.DeepEqual(got, declared) {
			t.Errorf("%s declares %v, want %v", a, got, declared)
		}
	}
}

// TestReportsAndProbes calls the app tools as a view would and fetches the
// probe server as a view's fetch would.
func TestReportsAndProbes(t *testing.T) {
	s := Start(t)
	ctx, cs := connect(t, s)
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolReport, Arguments: map[string]any{"attack": ReadParent, "outcome": map[string]any{"x": 1}}}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolReport, Arguments: map[string]any{}})
	if err != nil || !res.IsError {
		t.Errorf("a report without an attack: %v, %v", res, err)
	}
	for range 2 {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolTick, Arguments: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := s.WaitReport(ReadParent, time.Second)
	if err != nil || string(r.Outcome) != `{"x":1}` {
		t.Errorf("report %+v, %v", r, err)
	}
	if _, err := s.WaitReport(Flood, 10*time.Millisecond); err == nil {
		t.Error("a report of flood that no one sent")
	}
	if s.Ticks() != 2 {
		t.Errorf("%d ticks, want 2", s.Ticks())
	}
	req, _ := http.NewRequest("GET", s.ProbeOrigin()+ProbePath+"?from=test", nil)
	req.Header.Set("Origin", "null")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != ProbeBody || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("probe answered %q with %v", body, resp.Header)
	}
	if got := s.Probes(); !slices.Equal(got, []string{ProbePath + "?from=test"}) {
		t.Errorf("probes %q", got)
	}
	raw, _ := json.Marshal(s.Reports())
	if !strings.Contains(string(raw), ReadParent) {
		t.Errorf("reports %s", raw)
	}
}
