package dashboard

import (
	"fmt"
	"net/http"
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

// securityHeaders returns the headers every dashboard answer carries.
func securityHeaders(frameAncestors string) (http.Header, error) {
	if frameAncestors == "" {
		frameAncestors = defaultFrameAncestors
	}
	if strings.ContainsAny(frameAncestors, ";,\r\n") {
		return nil, fmt.Errorf("dashboard: frame-ancestors %q: must be a space-separated source list", frameAncestors)
	}
	h := http.Header{}
	h.Set("Content-Security-Policy", contentSecurityPolicy+frameAncestors)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	return h, nil
}
