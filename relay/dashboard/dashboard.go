package dashboard

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/relay/buildinfo"
	"github.com/switchboard-mcp/switchboard/static"
	"github.com/switchboard-mcp/switchboard/web"
)

// Config configures the dashboard handler.
type Config struct {
	// Static holds the dashboard's files under the paths of package static;
	// nil means the embedded static.FS().
	Static fs.FS
	// FrameAncestors is the CSP frame-ancestors source list naming the sites
	// that may embed the dashboard; "" means 'self'.
	FrameAncestors string
	// EmbedOrigins are the sites (scheme://host[:port], as a browser
	// writes an origin) that may frame the embedded dashboard
	// ([web.EmbedPath]); none means embedding is off.
	EmbedOrigins []string
	// State, when set, gives the state of the person a page request is
	// signed in as, and their page is prerendered with it.
	State StateFunc
	// AppsOrigin is the origin of the MCP Apps sandbox proxy
	// (scheme://host[:port]); "" means Apps are off. The page learns it
	// from go-app's environment, [AppsOriginEnv], and may frame it.
	AppsOrigin string
}

// AppsOriginEnv is the go-app environment variable that carries
// Config.AppsOrigin to the page (app.Getenv); "" means Apps are off.
const AppsOriginEnv = web.AppsOriginEnv

// themeColor colours the browser's UI around the dashboard; it matches the icon.
const themeColor = "#1f4fb8"

// versionLen is how many hex digits of the content hash name a build.
const versionLen = 16

// notBuilt is the answer while app.wasm is missing from the static files.
const notBuilt = "dashboard not built: run make build\n"

// Paths go-app's page would fetch through the server itself (its proxy
// resources) or that alias the wasm; the dashboard has none of them.
var refused = map[string]bool{
	"/robots.txt": true, "/sitemap.xml": true, "/ads.txt": true,
	"/app.wasm": true, "/goapp.wasm": true,
}

// handler routes the dashboard's requests.
type handler struct {
	headers http.Header  // security headers of every answer
	page    *app.Handler // go-app: pages, scripts, manifest
	state   StateFunc    // nil: pages prerendered without a state
	wasm    wasmFiles
	assets  map[string]asset // /web/... path → file

	embedOrigins []string    // sites that may frame the embed
	embedHeaders http.Header // security headers of the embed page
	embedScript  asset       // static/embed.js
}

// New returns the dashboard's handler, to mount at "/".
func New(cfg Config) (http.Handler, error) {
	files := cfg.Static
	if files == nil {
		files = static.FS()
	}
	if err := checkAppsOrigin(cfg.AppsOrigin); err != nil {
		return nil, err
	}
	headers, err := securityHeaders(cfg.FrameAncestors, cfg.AppsOrigin)
	if err != nil {
		return nil, err
	}
	wasm, err := readWasm(files)
	if errors.Is(err, fs.ErrNotExist) {
		return notBuiltHandler(headers), nil
	}
	if err != nil {
		return nil, err
	}
	assets, err := readAssets(files)
	if err != nil {
		return nil, err
	}
	if err := checkEmbedOrigins(cfg.EmbedOrigins); err != nil {
		return nil, err
	}
	embedScript, err := readEmbedScript(files)
	if err != nil {
		return nil, err
	}

	worker, err := serviceWorker()
	if err != nil {
		return nil, err
	}
	web.Routes()
	h := &handler{
		headers: headers,
		wasm:    wasm,
		assets:  assets,

		embedOrigins: cfg.EmbedOrigins,
		embedHeaders: embedHeaders(cfg.EmbedOrigins, cfg.AppsOrigin),
		embedScript:  embedScript,
		state:        cfg.State,
		page: &app.Handler{
			ServiceWorkerTemplate: worker,
			Name:                  "Switchboard",
			ShortName:             "Switchboard",
			Title:                 "Switchboard",
			Description:           "Your MCP servers, live: tools, prompts and resources.",
			LoadingLabel:          "Loading Switchboard… {progress}%",
			ThemeColor:            themeColor,
			BackgroundColor:       themeColor,
			Icon:                  app.Icon{Default: web.IconPath, Large: web.IconLargePath, SVG: web.IconSVGPath},
			Styles:                []string{web.StylesheetPath},
			Resources:             resolver{},
			Version:               buildVersion(wasm.raw.body, assets, cfg.AppsOrigin),
			WasmContentLength:     strconv.Itoa(len(wasm.raw.body)),
			Env:                   map[string]string{AppsOriginEnv: cfg.AppsOrigin, web.VersionEnv: buildinfo.Version()},
		},
	}
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for k, v := range h.headers {
		w.Header()[k] = v
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch p := r.URL.Path; {
	case p == wasmPath:
		h.wasm.serve(w, r)
	case strings.HasPrefix(p, webPrefix):
		a, ok := h.assets[p]
		if !ok {
			http.NotFound(w, r)
			return
		}
		a.serve(w, r)
	case refused[p]:
		http.NotFound(w, r)
	case p == web.EmbedScriptPath:
		serveEmbedScript(w, r, h.embedScript)
	case p == web.EmbedPath:
		if why := embedRefusal(h.embedOrigins, r); why != "" {
			serveRefusal(w, why)
			return
		}
		for k, v := range h.embedHeaders {
			w.Header()[k] = v
		}
		// One page at a time, as every page: go-app renders from a global,
		// and a person's page may be prerendering with their state.
		web.PrerenderWith(nil, func() { h.page.ServeHTTP(&privatePage{ResponseWriter: w}, r) })
	default:
		h.servePage(w, r)
	}
}

// notBuiltHandler answers every request with 503 and how to build the dashboard.
func notBuiltHandler(headers http.Header) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range headers {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, notBuilt)
	})
}

// buildVersion names a build by the hash of everything the page loads from
// package static and of env, the environment app.js carries (the Apps
// origin, whose port may change at each start), so the service worker,
// which serves them cache-first, drops its copies whenever one changes.
func buildVersion(wasm []byte, assets map[string]asset, env string) string {
	h := sha256.New()
	h.Write(wasm)
	for _, p := range assetPaths {
		h.Write([]byte(assets[p].etag))
	}
	h.Write([]byte(env))
	return hex.EncodeToString(h.Sum(nil))[:versionLen]
}

// shortHash names content in an ETag.
func shortHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:versionLen]
}
