package mcpwire

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

var b64 = base64.StdEncoding.EncodeToString

// iconServer serves icons over https, counting the fetches: a PNG under a
// generic type (the bytes decide), one too big, a page, and a redirect to
// http.
func iconServer(t *testing.T, pngBytes []byte, fetches *atomic.Int32) *httptest.Server {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		switch r.URL.Path {
		case "/icon.png":
			w.Header().Set("Content-Type", "application/octet-stream")
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
	t.Cleanup(srv.Close)
	return srv
}

// iconTools are tools, each named for the icons it has, and the icons
// each may show.
func iconTools(base string, pngBytes, gifBytes []byte) ([]*mcp.Tool, map[string][]string) {
	wantPNG, wantGIF := "data:image/png;base64,"+b64(pngBytes), "data:image/gif;base64,"+b64(gifBytes)
	var tools []*mcp.Tool
	want := map[string][]string{}
	tool := func(name string, shown []string, srcs ...string) {
		var ics []mcp.Icon
		for _, s := range srcs {
			ics = append(ics, mcp.Icon{Source: s, Sizes: []string{"16x16"}, Theme: "dark"})
		}
		tools = append(tools, &mcp.Tool{Name: name, Icons: ics})
		want[name] = shown
	}
	tool("png_data", []string{wantPNG}, wantPNG)
	tool("svg_data", nil, "data:image/svg+xml;base64,"+b64([]byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)))
	tool("lying_data", nil, "data:image/png;base64,"+b64(gifBytes))
	tool("huge_data", nil, "data:image/png;base64,"+b64(append(pngBytes, make([]byte, wire.MaxIconBytes)...)))
	tool("https_icon", []string{wantPNG}, base+"/icon.png")
	tool("http_icon", nil, strings.Replace(base, "https:", "http:", 1)+"/icon.png")
	tool("https_big", nil, base+"/big.png")
	tool("https_html", nil, base+"/page.html")
	tool("https_redirect", nil, base+"/to-http")
	tool("shared", []string{wantPNG, wantGIF}, base+"/icon.png", wantGIF)
	return tools, want
}

func TestIconsReachTheDashboardOnlyAsSafeDataURIs(t *testing.T) {
	pngBytes, gifBytes := encodedPNG(t), encodedGIF(t)
	var fetches atomic.Int32
	srv := iconServer(t, pngBytes, &fetches)
	cv := NewConverter(srv.Client(), nil)
	tools, want := iconTools(srv.URL, pngBytes, gifBytes)
	ctx := context.Background()

	t.Run("tools", func(t *testing.T) {
		for _, tl := range cv.Tools(ctx, tools, nil, nil) {
			var srcs []string
			for _, ic := range tl.Icons {
				srcs = append(srcs, ic.Src)
				if ic.Theme != "dark" || len(ic.Sizes) != 1 || ic.Sizes[0] != "16x16" || !strings.HasPrefix(ic.Src, "data:"+ic.MIMEType+";") {
					t.Errorf("%s: icon %+v", tl.Name, ic)
				}
			}
			if strings.Join(srcs, " ") != strings.Join(want[tl.Name], " ") {
				t.Errorf("%s: icons %.80q, want %.80q", tl.Name, srcs, want[tl.Name])
			}
		}
	})
	t.Run("prompts, resources and templates", func(t *testing.T) {
		checkOtherIcons(t, cv, srv.URL, pngBytes, gifBytes)
	})
	t.Run("fetched once", func(t *testing.T) {
		// Four https icons were fetched once each; listing again fetches none.
		before := fetches.Load()
		if before != 4 {
			t.Errorf("%d icon fetches, want 4 (one per distinct URL)", before)
		}
		cv.Tools(ctx, tools, nil, nil)
		if n := fetches.Load(); n != before {
			t.Errorf("listing again fetched %d icons", n-before)
		}
	})
}

// checkOtherIcons checks that prompts, resources and templates keep the
// same icons as tools would: only safe data: URIs.
func checkOtherIcons(t *testing.T, cv *Converter, base string, pngBytes, gifBytes []byte) {
	ctx := context.Background()
	svg := mcp.Icon{Source: "data:image/svg+xml;base64," + b64([]byte("<svg/>"))}
	prompts := cv.Prompts(ctx, []*mcp.Prompt{{Name: "greet", Icons: []mcp.Icon{{Source: base + "/icon.png"}, svg}}})
	if ics := prompts[0].Icons; len(ics) != 1 || ics[0].Src != "data:image/png;base64,"+b64(pngBytes) {
		t.Errorf("prompt icons %.80q", ics)
	}
	resources := cv.Resources(ctx, []*mcp.Resource{{URI: "test://r", Name: "r", Icons: []mcp.Icon{svg, {Source: "data:image/gif;base64," + b64(gifBytes)}}}})
	if ics := resources[0].Icons; len(ics) != 1 || ics[0].MIMEType != "image/gif" {
		t.Errorf("resource icons %.80q", ics)
	}
	templates := cv.Templates(ctx, []*mcp.ResourceTemplate{{URITemplate: "test://{x}", Name: "t", Icons: []mcp.Icon{{Source: base + "/page.html"}}}})
	if ics := templates[0].Icons; len(ics) != 0 {
		t.Errorf("template icons %.80q", ics)
	}
}

func TestIconsAreNotFetchedWithoutAClient(t *testing.T) {
	var fetches atomic.Int32
	srv := iconServer(t, encodedPNG(t), &fetches)
	tools := NewConverter(nil, nil).Tools(context.Background(), []*mcp.Tool{{Name: "t", Icons: []mcp.Icon{{Source: srv.URL + "/icon.png"}}}}, nil, nil)
	if len(tools) != 1 || len(tools[0].Icons) != 0 || fetches.Load() != 0 {
		t.Errorf("tools %+v after %d fetches; want the icon dropped unfetched", tools, fetches.Load())
	}
}
