package wire

import (
	"net/url"
	"slices"
)

// MCP Apps (the io.modelcontextprotocol/ui extension): a tool names a ui://
// resource whose HTML the dashboard renders as the tool's view, in a
// sandbox on an origin other than the dashboard's.
const (
	// AppsExtension is the extension's name in capabilities.extensions.
	AppsExtension = "io.modelcontextprotocol/ui"
	// AppMIMEType is the type of a view's HTML.
	AppMIMEType = "text/html;profile=mcp-app"
	// AppsProtocolVersion is the version of the view protocol the dashboard
	// speaks (ui/initialize).
	AppsProtocolVersion = "2026-01-26"
	// MaxAppHTML caps a view's HTML: a larger one is refused as too large.
	MaxAppHTML = 4 << 20
)

// Who may see and call a tool of an App (ToolUI.Visibility).
const (
	VisibleToModel = "model"
	VisibleToApp   = "app"
)

// ToolUI is a tool's _meta.ui: the view that renders its results, and who
// may call it.
type ToolUI struct {
	ResourceURI string `json:"resourceUri,omitempty"` // a ui:// URI of the same server
	// Visibility lists who may call the tool (VisibleTo*); empty means both.
	Visibility []string `json:"visibility,omitempty"`
}

// ForModel says whether a tool may be offered to models and agents: not
// when its visibility leaves "model" out.
func (t Tool) ForModel() bool {
	return t.UI == nil || len(t.UI.Visibility) == 0 || slices.Contains(t.UI.Visibility, VisibleToModel)
}

// ForApp says whether a view of the tool's server may call the tool.
func (t Tool) ForApp() bool {
	return t.UI == nil || len(t.UI.Visibility) == 0 || slices.Contains(t.UI.Visibility, VisibleToApp)
}

// AppCSP is what a view declares it needs of the network (its resource's
// _meta.ui.csp). Each entry is an origin, possibly with a leading "*." in
// its host; nothing declared means no network at all.
type AppCSP struct {
	ConnectDomains  []string `json:"connectDomains,omitempty"`
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	FrameDomains    []string `json:"frameDomains,omitempty"`
	BaseURIDomains  []string `json:"baseUriDomains,omitempty"`
}

// AppPermissions are the browser features a view asks for (its resource's
// _meta.ui.permissions).
type AppPermissions struct {
	Camera         bool `json:"camera,omitempty"`
	Microphone     bool `json:"microphone,omitempty"`
	Geolocation    bool `json:"geolocation,omitempty"`
	ClipboardWrite bool `json:"clipboardWrite,omitempty"`
}

// AppView is a view as the relay read it: its HTML and what it declared.
type AppView struct {
	Server      string         `json:"server"`
	URI         string         `json:"uri"`
	HTML        string         `json:"html"`
	CSP         AppCSP         `json:"csp,omitzero"`
	Permissions AppPermissions `json:"permissions,omitzero"`
	// PrefersBorder is the view's wish for a visible frame; nil: no wish.
	PrefersBorder *bool `json:"prefersBorder,omitempty"`
	// Dropped are declared domains the relay refused (not an origin, or
	// the relay's own), so the dashboard can say what the view will miss.
	Dropped []string `json:"dropped,omitempty"`
}

// ReadAppArgs are the arguments of [OpReadApp].
type ReadAppArgs struct {
	Server string `json:"server"`
	URI    string `json:"uri"` // a ui:// URI
}

// AppLogArgs are the arguments of [OpAppLog]: a view's
// notifications/message, for its server's log.
type AppLogArgs struct {
	Server string `json:"server"`
	URI    string `json:"uri"` // the view's ui:// URI
	Level  string `json:"level"`
	Logger string `json:"logger,omitempty"`
	Data   any    `json:"data"`
}

// Ops of Apps.
const (
	// OpReadApp reads a tool's view through the relay: [ReadAppArgs] →
	// [AppView]. Views are cached per server while its lists do not change.
	OpReadApp OpName = "app.read"
	// OpAppLog writes a view's log message into its server's log:
	// [AppLogArgs] → {}.
	OpAppLog OpName = "app.log"
)

// The sandbox proxy: the page the dashboard frames on the Apps origin, which
// frames a view in turn. Its query carries what the view declared, so that
// the relay sends the policy as the proxy's own Content-Security-Policy and
// Permissions-Policy headers, which the view's frame inherits.
const (
	// AppSandboxPath is the proxy's path on the Apps origin.
	AppSandboxPath = "/sandbox"
	// Query keys of the proxy's URL: the dashboard's origin (which alone
	// may frame it and talk to it), then each declared domain and granted
	// permission, one value each.
	AppQueryHost     = "host"
	AppQueryConnect  = "connect"
	AppQueryResource = "resource"
	AppQueryFrame    = "frame"
	AppQueryBase     = "base"
	AppQueryAllow    = "allow" // camera, microphone, geolocation, clipboard-write
)

// AppSandboxURL is the proxy's URL on appsOrigin for a view shown on the
// dashboard at host (an origin), with the view's declared CSP and the
// permissions granted.
func AppSandboxURL(appsOrigin, host string, csp AppCSP, granted AppPermissions) string {
	q := url.Values{}
	q.Set(AppQueryHost, host)
	q[AppQueryConnect] = csp.ConnectDomains
	q[AppQueryResource] = csp.ResourceDomains
	q[AppQueryFrame] = csp.FrameDomains
	q[AppQueryBase] = csp.BaseURIDomains
	for name, on := range map[string]bool{"camera": granted.Camera, "microphone": granted.Microphone,
		"geolocation": granted.Geolocation, "clipboard-write": granted.ClipboardWrite} {
		if on {
			q.Add(AppQueryAllow, name)
		}
	}
	return appsOrigin + AppSandboxPath + "?" + q.Encode()
}
