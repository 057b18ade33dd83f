package dashboard

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/static"
	"github.com/switchboard-mcp/switchboard/web"
)

// webPrefix is where go-app asks for static resources.
const webPrefix = "/web/"

// asset is one static file, read once.
type asset struct {
	body        []byte
	contentType string
	encoding    string // Content-Encoding, "" for none
	etag        string // quoted
}

// assetFiles maps the page's paths to the files of package static.
var assetFiles = map[string]struct{ file, contentType string }{
	web.StylesheetPath: {static.Stylesheet, "text/css; charset=utf-8"},
	web.IconSVGPath:    {static.IconSVG, "image/svg+xml"},
	web.IconPath:       {static.Icon, "image/png"},
	web.IconLargePath:  {static.IconLarge, "image/png"},
}

// assetPaths lists assetFiles' keys in a fixed order.
var assetPaths = []string{web.StylesheetPath, web.IconSVGPath, web.IconPath, web.IconLargePath}

// readAssets reads the stylesheet and icons; all must be there.
func readAssets(files fs.FS) (map[string]asset, error) {
	out := make(map[string]asset, len(assetFiles))
	for _, p := range assetPaths {
		f := assetFiles[p]
		b, err := fs.ReadFile(files, f.file)
		if err != nil {
			return nil, fmt.Errorf("dashboard: read %s: %w", f.file, err)
		}
		out[p] = asset{body: b, contentType: f.contentType, etag: `"` + shortHash(b) + `"`}
	}
	return out, nil
}

// serve writes the asset; the browser revalidates it with its ETag.
func (a asset) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", a.etag)
	if a.encoding != "" {
		h.Set("Content-Encoding", a.encoding)
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}

// resolver tells go-app that static resources live under /web/ on this
// origin. It is not an http.Handler, so go-app never serves files itself:
// ServeHTTP answers /web/ from the embedded files before go-app sees it.
type resolver struct{}

// Resolve implements app.ResourceResolver.
func (resolver) Resolve(location string) string {
	if location == "" || location == "/" {
		return "/"
	}
	if strings.HasPrefix(location, "http://") || strings.HasPrefix(location, "https://") {
		return location
	}
	if !strings.HasPrefix(location, "/web/") && !strings.HasPrefix(location, "web/") &&
		location != "/web" && location != "web" {
		return location
	}
	return "/" + strings.Trim(location, "/")
}
