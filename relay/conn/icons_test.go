package conn

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/gif"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func encodedPNG(t *testing.T) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodedGIF(t *testing.T) []byte {
	var b bytes.Buffer
	if err := gif.Encode(&b, image.NewRGBA(image.Rect(0, 0, 2, 2)), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestIconsReachTheDashboardOnlyAsSafeDataURIs(t *testing.T) {
	pngBytes, gifBytes := encodedPNG(t), encodedGIF(t)
	b64 := base64.StdEncoding.EncodeToString
	var fetches atomic.Int32
	icons := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		switch r.URL.Path {
		case "/icon.png":
			w.Header().Set("Content-Type", "application/octet-stream") // generic: the bytes decide
			w.Write(pngBytes)
		case "/big.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(append(pngBytes, make([]byte, wire.MaxIconBytes)...))
		case "/page.html":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<script>alert(1)</script>"))
		case "/to-http":
			http.Redirect(w, r, "http://example.invalid/icon.png", http.StatusFound)
		}
	}))
	defer icons.Close()

	f := newFixture(t, legacyEra, nil)
	tool := func(name string, srcs ...string) {
		var ics []mcp.Icon
		for _, s := range srcs {
			ics = append(ics, mcp.Icon{Source: s, Sizes: []string{"16x16"}, Theme: "dark"})
		}
		addToolWithIcons(f.server, name, ics)
	}
	tool("png_data", "data:image/png;base64,"+b64(pngBytes))
	tool("svg_data", "data:image/svg+xml;base64,"+b64([]byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)))
	tool("lying_data", "data:image/png;base64,"+b64(gifBytes))
	tool("huge_data", "data:image/png;base64,"+b64(append(pngBytes, make([]byte, wire.MaxIconBytes)...)))
	tool("https_icon", icons.URL+"/icon.png")
	tool("http_icon", strings.Replace(icons.URL, "https:", "http:", 1)+"/icon.png")
	tool("https_big", icons.URL+"/big.png")
	tool("https_html", icons.URL+"/page.html")
	tool("https_redirect", icons.URL+"/to-http")
	tool("shared", icons.URL+"/icon.png", "data:image/gif;base64,"+b64(gifBytes))

	svg := mcp.Icon{Source: "data:image/svg+xml;base64," + b64([]byte("<svg/>"))}
	f.server.AddPrompt(&mcp.Prompt{Name: "greet", Icons: []mcp.Icon{{Source: icons.URL + "/icon.png"}, svg}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	f.server.AddResource(&mcp.Resource{URI: "test://r", Name: "r", Icons: []mcp.Icon{svg, {Source: "data:image/gif;base64," + b64(gifBytes)}}},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
	f.server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://{x}", Name: "t", Icons: []mcp.Icon{{Source: icons.URL + "/page.html"}}},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})

	cfg := testConfig(f.url)
	cfg.HTTPClient = icons.Client()
	c, r := start(t, cfg)
	ready := r.awaitState(wire.StateReady)
	got := map[string][]wire.Icon{}
	for _, tl := range ready.Tools {
		got[tl.Name] = tl.Icons
	}
	wantPNG := "data:image/png;base64," + b64(pngBytes)
	for name, want := range map[string][]string{
		"png_data": {wantPNG}, "svg_data": nil, "lying_data": nil, "huge_data": nil,
		"https_icon": {wantPNG}, "http_icon": nil, "https_big": nil, "https_html": nil, "https_redirect": nil,
		"shared": {wantPNG, "data:image/gif;base64," + b64(gifBytes)},
	} {
		var srcs []string
		for _, ic := range got[name] {
			srcs = append(srcs, ic.Src)
			if ic.Theme != "dark" || len(ic.Sizes) != 1 || ic.Sizes[0] != "16x16" || !strings.HasPrefix(ic.Src, "data:"+ic.MIMEType+";") {
				t.Errorf("%s: icon %+v", name, ic)
			}
		}
		if strings.Join(srcs, " ") != strings.Join(want, " ") {
			t.Errorf("%s: icons %.80q, want %.80q", name, srcs, want)
		}
	}
	// Prompts, resources and templates keep the same icons only.
	if ics := ready.Prompts[0].Icons; len(ics) != 1 || ics[0].Src != wantPNG {
		t.Errorf("prompt icons %.80q", ics)
	}
	if ics := ready.Resources[0].Icons; len(ics) != 1 || ics[0].MIMEType != "image/gif" {
		t.Errorf("resource icons %.80q", ics)
	}
	if ics := ready.Templates[0].Icons; len(ics) != 0 {
		t.Errorf("template icons %.80q", ics)
	}
	// Four https icons were fetched once each; listing again fetches none.
	before := fetches.Load()
	if before != 4 {
		t.Errorf("%d icon fetches, want 4 (one per distinct URL)", before)
	}
	c.Retry()
	r.awaitState(wire.StateConnecting)
	r.awaitState(wire.StateReady)
	if n := fetches.Load(); n != before {
		t.Errorf("listing again fetched %d icons", n-before)
	}
}

// addToolWithIcons adds a tool without arguments that has icons.
func addToolWithIcons(s *mcp.Server, name string, icons []mcp.Icon) {
	s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}, Icons: icons},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
}
