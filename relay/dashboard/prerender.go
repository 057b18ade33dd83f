package dashboard

import (
	"compress/gzip"
	"net/http"
	"path"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web"
)

// StateFunc returns the state of the person a page request is signed in as;
// ok is false for a request without a valid session, whose page is
// prerendered without a state (as "connecting").
type StateFunc func(r *http.Request) (snap wire.Snapshot, ok bool)

// servePage answers a page: prerendered with the person's state when the
// request has a session, and then never stored by a cache nor answered "not
// modified" (go-app's ETag names the build, not the state).
func (h *handler) servePage(w http.ResponseWriter, r *http.Request) {
	snap := h.pageState(r)
	if snap == nil { // still one at a time: no other person's state is set meanwhile
		web.PrerenderWith(nil, func() { h.page.ServeHTTP(w, r) })
		return
	}
	r = r.Clone(r.Context())
	r.Header.Del("If-None-Match")
	pw := &privatePage{ResponseWriter: w}
	if accepts(r.Header.Get("Accept-Encoding"), "gzip") { // a person's page grows with their tools
		pw.gz = gzip.NewWriter(w)
		defer pw.gz.Close()
	}
	web.PrerenderWith(snap, func() { h.page.ServeHTTP(pw, r) })
}

// pageState returns the state to prerender r's page with, nil for none.
func (h *handler) pageState(r *http.Request) *wire.Snapshot {
	if h.state == nil || !isPage(r.URL.Path) {
		return nil
	}
	snap, ok := h.state(r)
	if !ok {
		return nil
	}
	safe, err := attrSafe(snap)
	if err != nil { // cannot happen with a state that went through JSON: show the page without it
		return nil
	}
	return &safe
}

// isPage reports whether p names a page rather than one of go-app's files
// (app.js, app-worker.js, manifest.webmanifest, ...).
func isPage(p string) bool {
	return !strings.Contains(path.Base(p), ".")
}

// privatePage keeps a page with a person's state out of every cache, and
// compresses it when gz is set.
type privatePage struct {
	http.ResponseWriter
	gz      *gzip.Writer
	written bool // the header was written
}

func (p *privatePage) WriteHeader(code int) {
	if p.written {
		return
	}
	p.written = true
	h := p.Header()
	h.Del("ETag")
	h.Set("Cache-Control", "no-store")
	h.Add("Vary", "Accept-Encoding")
	if p.gz != nil {
		h.Del("Content-Length")
		h.Set("Content-Encoding", "gzip")
	}
	p.ResponseWriter.WriteHeader(code)
}

func (p *privatePage) Write(b []byte) (int, error) {
	p.WriteHeader(http.StatusOK)
	if p.gz != nil {
		return p.gz.Write(b)
	}
	return p.ResponseWriter.Write(b)
}
