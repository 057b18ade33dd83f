package dashboard

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/static"
	"github.com/switchboard-mcp/switchboard/web"
)

// The embedded dashboard ([web.EmbedPath]) is served only to the sites the
// relay lists (Config.EmbedOrigins), and the browser enforces it: its
// Content-Security-Policy's frame-ancestors names exactly them. A site that
// is not listed gets a page that says so (when the embed script told the
// relay which site it is, and the Referer does not contradict it); a page
// that lies about its origin is stopped by frame-ancestors.
//
// The embed never runs the service worker: its policy has worker-src
// 'none', so it registers none, and the worker a top-level dashboard
// registered serves a framed page nothing from its cache (see worker.go).
// After the relay is upgraded an embed loads the new code on its next load.

// embedHeaders returns the security headers of the embed page: the
// dashboard's policy with no workers and frame-ancestors listing origins.
func embedHeaders(origins []string, appsOrigin string) http.Header {
	policy := strings.Replace(withApps(contentSecurityPolicy, appsOrigin), "worker-src 'self'; ", "worker-src 'none'; ", 1)
	h := http.Header{}
	h.Set("Content-Security-Policy", policy+strings.Join(origins, " "))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	return h
}

// refusalPolicy lets any site frame the refusal page, which is plain text
// with nothing to click: it tells the person in the frame why it is empty.
const refusalPolicy = "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors *"

// refusalPage says why the embed is not shown.
var refusalPage = template.Must(template.New("refusal").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Switchboard cannot be shown here</title>
<link rel="stylesheet" href="` + web.StylesheetPath + `">
</head>
<body>
<main id="embed-refused" class="sb-embed-refused" role="alert">
<h1>Switchboard cannot be shown here</h1>
<p>{{.}}</p>
</main>
</body>
</html>
`))

// checkEmbedOrigins normalizes nothing: the relay hands over origins it
// checked. It refuses what would break the header.
func checkEmbedOrigins(origins []string) error {
	for _, o := range origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" ||
			u.RawQuery != "" || u.Fragment != "" || u.User != nil || strings.ContainsAny(o, " ;,'\"\r\n") {
			return fmt.Errorf("dashboard: embed origin %q: want scheme://host[:port]", o)
		}
	}
	return nil
}

// embedRefusal returns why the embed request r may not be served, or "".
func embedRefusal(origins []string, r *http.Request) string {
	if len(origins) == 0 {
		return "This relay does not allow embedding. Its operator can allow a site with --embed-origins."
	}
	host := r.URL.Query().Get(web.EmbedParamHost)
	if host == "" {
		return "The page embedding Switchboard did not say which site it is. Embed it with the relay's " + web.EmbedScriptPath + "."
	}
	if !slices.Contains(origins, host) {
		return "The site " + host + " is not allowed to embed this relay's Switchboard. Its operator can allow it with --embed-origins."
	}
	if ref := refererOrigin(r); ref != "" && ref != host {
		return "The page embedding Switchboard (" + ref + ") is not the site it claims to be (" + host + ")."
	}
	return ""
}

// refererOrigin returns the scheme://host of r's Referer, "" without one.
func refererOrigin(r *http.Request) string {
	u, err := url.Parse(r.Header.Get("Referer"))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// serveRefusal answers an embed request that may not be served.
func serveRefusal(w http.ResponseWriter, why string) {
	var b bytes.Buffer
	if err := refusalPage.Execute(&b, why); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Security-Policy", refusalPolicy)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusForbidden)
	w.Write(b.Bytes())
}

// readEmbedScript reads static/embed.js.
func readEmbedScript(files fs.FS) (asset, error) {
	b, err := fs.ReadFile(files, static.EmbedScript)
	if err != nil {
		return asset{}, fmt.Errorf("dashboard: read %s: %w", static.EmbedScript, err)
	}
	return asset{body: b, contentType: "text/javascript; charset=utf-8", etag: `"` + shortHash(b) + `"`}, nil
}

// serveEmbedScript serves embed.js to any site: a host page loads it from
// its own origin's point of view, cross-origin.
func serveEmbedScript(w http.ResponseWriter, r *http.Request, a asset) {
	w.Header().Set("Cross-Origin-Resource-Policy", "cross-origin")
	a.serve(w, r)
}
