package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// defaultFrameAncestors lets only the relay's own pages frame the dashboard.
const defaultFrameAncestors = "'self'"

// contentSecurityPolicy fits a go-app page: its scripts (wasm_exec.js,
// app.js, the service worker) come from the origin and none is inline;
// 'wasm-unsafe-eval' lets them compile app.wasm, and no eval is needed
// beyond that. The WebSocket to the relay is same-origin ('self' covers ws:
// and wss: on the page's host). Server data is rendered as text; the one
// exception is a resource's image or sound, which the dashboard shows from a
// data: URL it builds for an allow-list of types (never SVG), hence data: for
// images and media. Nothing else (inline styles, plugins) is allowed.
const contentSecurityPolicy = "default-src 'self'; " +
	"script-src 'self' 'wasm-unsafe-eval'; " +
	"style-src 'self'; " +
	"img-src 'self' data:; " +
	"media-src data:; " +
	"connect-src 'self'; " +
	"worker-src 'self'; " +
	"manifest-src 'self'; " +
	"object-src 'none'; " +
	"base-uri 'none'; " +
	"form-action 'self'; " +
	"frame-ancestors "

// withApps adds frame-src appsOrigin to policy (one of the policies
// above), so that the dashboard may frame the MCP Apps sandbox proxy and
// nothing else; "" (Apps off) leaves policy as it is.
func withApps(policy, appsOrigin string) string {
	if appsOrigin == "" {
		return policy
	}
	return strings.Replace(policy, "object-src ", "frame-src "+appsOrigin+"; object-src ", 1)
}

// checkAppsOrigin checks the Apps origin the dashboard may frame: an http
// or https origin, nothing else.
func checkAppsOrigin(o string) error {
	if o == "" {
		return nil
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Scheme+"://"+u.Host != o ||
		strings.ContainsAny(u.Host, "*;,' \t\r\n") {
		return fmt.Errorf("dashboard: apps origin %q: must be an http or https origin", o)
	}
	return nil
}

// securityHeaders returns the headers every dashboard answer carries.
func securityHeaders(frameAncestors, appsOrigin string) (http.Header, error) {
	if frameAncestors == "" {
		frameAncestors = defaultFrameAncestors
	}
	if strings.ContainsAny(frameAncestors, ";,\r\n") {
		return nil, fmt.Errorf("dashboard: frame-ancestors %q: must be a space-separated source list", frameAncestors)
	}
	h := http.Header{}
	h.Set("Content-Security-Policy", withApps(contentSecurityPolicy, appsOrigin)+frameAncestors)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	return h, nil
}
