package apps

import (
	"fmt"
	"mime"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Errors of reading a view.
var (
	errNotView = wire.NewError(wire.CodeBadRequest, "the resource is not a view: its type is not "+wire.AppMIMEType)
	errNoView  = wire.NewError(wire.CodeBadRequest, "the server returned no content for the view")
	errTooBig  = wire.NewError(wire.CodeTooLarge, fmt.Sprintf("the view is too large to show: its HTML is over %d MiB, or over the relay's limit on an answer once encoded", wire.MaxAppHTML>>20))
)

// viewOf makes the view of a resource read, refusing the domains no view
// may declare (own: the relay's and the Apps origin).
func viewOf(server, uri string, res *mcp.ReadResourceResult, own []origin) (wire.AppView, error) {
	var c *mcp.ResourceContents
	for _, rc := range res.Contents {
		if rc != nil && (rc.URI == uri || c == nil) {
			c = rc
		}
	}
	if c == nil {
		return wire.AppView{}, errNoView
	}
	if !isViewType(c.MIMEType) {
		return wire.AppView{}, errNotView
	}
	html := c.Text
	if html == "" && len(c.Blob) > 0 {
		if len(c.Blob) > wire.MaxAppHTML {
			return wire.AppView{}, errTooBig
		}
		html = string(c.Blob)
	}
	if len(html) > wire.MaxAppHTML {
		return wire.AppView{}, errTooBig
	}
	v := wire.AppView{Server: server, URI: uri, HTML: html}
	ui, _ := c.Meta["ui"].(map[string]any)
	if ui == nil {
		return v, nil
	}
	if csp, ok := ui["csp"].(map[string]any); ok {
		v.CSP.ConnectDomains = domains(csp["connectDomains"], own, &v.Dropped)
		v.CSP.ResourceDomains = domains(csp["resourceDomains"], own, &v.Dropped)
		v.CSP.FrameDomains = domains(csp["frameDomains"], own, &v.Dropped)
		v.CSP.BaseURIDomains = domains(csp["baseUriDomains"], own, &v.Dropped)
	}
	if p, ok := ui["permissions"].(map[string]any); ok {
		v.Permissions = wire.AppPermissions{
			Camera:         asked(p["camera"]),
			Microphone:     asked(p["microphone"]),
			Geolocation:    asked(p["geolocation"]),
			ClipboardWrite: asked(p["clipboardWrite"]),
		}
	}
	if b, ok := ui["prefersBorder"].(bool); ok {
		v.PrefersBorder = &b
	}
	return v, nil
}

// isViewType says whether a resource's MIME type is a view's.
func isViewType(t string) bool {
	mt, params, err := mime.ParseMediaType(t)
	return err == nil && mt == "text/html" && params["profile"] == "mcp-app" && len(params) == 1
}

// asked reads a permission: the specification's {} or, leniently, true.
func asked(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		return true
	case bool:
		return v
	}
	return false
}

// domains reads a declared list: at most maxDeclared origin patterns, each
// once; the others are added to dropped (cut to a readable length).
func domains(v any, own []origin, dropped *[]string) []string {
	list, _ := v.([]any)
	var out []string
	for i, d := range list {
		s, ok := d.(string)
		if !ok {
			s = fmt.Sprintf("%v", d)
		}
		if i >= maxDeclared {
			*dropped = append(*dropped, fmt.Sprintf("%d more domains", len(list)-maxDeclared))
			break
		}
		c, err := checkDomain(s, own)
		if err != nil || !ok {
			*dropped = append(*dropped, wire.Sanitize(s, 100))
			continue
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}
