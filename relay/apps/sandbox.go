package apps

import (
	_ "embed"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// ScriptPath is the path of the proxy's script on the Apps origin.
const ScriptPath = "/sandbox.js"

// maxDeclared caps the domains of each kind a view may declare.
const maxDeclared = 32

//go:embed sandbox.js
var script []byte

// proxyPage is the sandbox proxy: its script frames the view.
const proxyPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>Switchboard view</title>
<style>html,body{margin:0;height:100%;overflow:hidden}iframe{border:0;display:block;width:100%;height:100%}</style>
<script src="` + ScriptPath + `"></script>
</head><body></body></html>
`

// features maps the allow values of the proxy's URL to the browser's names.
var features = []string{"camera", "microphone", "geolocation", "clipboard-write"}

// SandboxConfig configures the handler of the Apps origin.
type SandboxConfig struct {
	// Origin is the Apps origin itself (scheme://host[:port]).
	Origin string
	// Hosts are the dashboard's origins: only they may frame the proxy.
	Hosts []string
	// Refused are the relay's own origins, which no view may reach.
	Refused []string
}

// sandbox serves the Apps origin.
type sandbox struct {
	hosts []string
	own   []origin
}

// NewSandbox returns the handler of the Apps origin: the proxy at
// [wire.AppSandboxPath], its script at [ScriptPath], and 404 for anything
// else.
func NewSandbox(cfg SandboxConfig) (http.Handler, error) {
	s := &sandbox{}
	for _, o := range append([]string{cfg.Origin}, cfg.Refused...) {
		p, ok := originOf(o)
		if !ok {
			return nil, fmt.Errorf("apps: %q is not an origin", o)
		}
		s.own = append(s.own, p)
	}
	for _, h := range cfg.Hosts {
		p, ok := originOf(h)
		if !ok || strings.HasPrefix(p.host, "*.") {
			return nil, fmt.Errorf("apps: dashboard origin %q is not an origin", h)
		}
		s.hosts = append(s.hosts, p.String())
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+wire.AppSandboxPath, s.serveProxy)
	mux.HandleFunc("GET "+ScriptPath, serveScript)
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		plainHeaders(w.Header())
		http.Error(w, "not found", http.StatusNotFound)
	})
	return mux, nil
}

// plainHeaders are the headers of every answer.
func plainHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
}

func serveScript(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	plainHeaders(h)
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	w.Write(script)
}

// policy is what the proxy's URL asks for.
type policy struct {
	host                           string
	connect, resource, frame, base []string
	allow                          []string
}

func (s *sandbox) serveProxy(w http.ResponseWriter, r *http.Request) {
	plainHeaders(w.Header())
	p, err := s.parse(r.URL.Query())
	if err != nil {
		http.Error(w, "bad sandbox request: "+err.Error(), http.StatusBadRequest)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", p.csp())
	h.Set("Permissions-Policy", p.permissions())
	h.Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, proxyPage)
}

// parse checks the proxy's query.
func (s *sandbox) parse(q url.Values) (policy, error) {
	var p policy
	for k := range q {
		switch k {
		case wire.AppQueryHost, wire.AppQueryConnect, wire.AppQueryResource, wire.AppQueryFrame, wire.AppQueryBase, wire.AppQueryAllow:
		default:
			return p, fmt.Errorf("unknown parameter %q", k)
		}
	}
	hosts := q[wire.AppQueryHost]
	if len(hosts) != 1 || !slices.Contains(s.hosts, hosts[0]) {
		return p, fmt.Errorf("host must be the dashboard's origin")
	}
	p.host = hosts[0]
	for _, d := range []struct {
		key string
		out *[]string
	}{{wire.AppQueryConnect, &p.connect}, {wire.AppQueryResource, &p.resource}, {wire.AppQueryFrame, &p.frame}, {wire.AppQueryBase, &p.base}} {
		vals := q[d.key]
		if len(vals) > maxDeclared {
			return p, fmt.Errorf("%s: more than %d domains", d.key, maxDeclared)
		}
		for _, v := range vals {
			c, err := checkDomain(v, s.own)
			if err != nil {
				return p, fmt.Errorf("%s %q: %v", d.key, v, err)
			}
			*d.out = append(*d.out, c)
		}
	}
	for _, a := range q[wire.AppQueryAllow] {
		if !slices.Contains(features, a) {
			return p, fmt.Errorf("allow %q: only camera, microphone, geolocation and clipboard-write", a)
		}
		if !slices.Contains(p.allow, a) {
			p.allow = append(p.allow, a)
		}
	}
	return p, nil
}

// csp is the proxy's Content-Security-Policy, which the view's frame
// inherits: the specification's template for the declared domains.
func (p policy) csp() string {
	or := func(list []string, none string) string {
		if len(list) == 0 {
			return none
		}
		return strings.Join(list, " ")
	}
	res := strings.Join(p.resource, " ")
	with := func(base string) string {
		if res == "" {
			return base
		}
		return base + " " + res
	}
	return strings.Join([]string{
		"default-src 'none'",
		"script-src " + with("'self' 'unsafe-inline'"),
		"style-src " + with("'self' 'unsafe-inline'"),
		"connect-src " + or(p.connect, "'none'"),
		"img-src " + with("'self' data:"),
		"font-src " + with("'self'"),
		"media-src " + with("'self' data:"),
		"frame-src " + or(p.frame, "'none'"),
		"object-src 'none'",
		"base-uri " + or(p.base, "'self'"),
		"frame-ancestors " + p.host,
	}, "; ")
}

// permissions is the proxy's Permissions-Policy: the granted features for
// the proxy and the view's frame, none of the others.
func (p policy) permissions() string {
	out := make([]string, len(features))
	for i, f := range features {
		if slices.Contains(p.allow, f) {
			out[i] = f + "=*"
		} else {
			out[i] = f + "=()"
		}
	}
	return strings.Join(out, ", ")
}
