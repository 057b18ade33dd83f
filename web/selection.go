package web

import (
	"net/url"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// hashPrefix starts the page's fragment that names the selected server;
// no element has it as id, so the browser never scrolls to one.
const hashPrefix = "#server="

// hashOf is the fragment that names server id.
func hashOf(id string) string { return hashPrefix + url.QueryEscape(id) }

// idOfHash returns the server id a fragment names, or "".
func idOfHash(hash string) string {
	rest, ok := strings.CutPrefix(hash, hashPrefix)
	if !ok {
		return ""
	}
	id, err := url.QueryUnescape(rest)
	if err != nil {
		return ""
	}
	return id
}

// selectedInURL returns the server id the page's address names, or "".
func selectedInURL() string {
	if !app.IsClient {
		return ""
	}
	return idOfHash(app.Window().Get("location").Get("hash").String())
}

// keepSelectedInURL names server id in the page's address, without a new
// history entry, so a reload shows it again.
func keepSelectedInURL(id string) {
	if !app.IsClient || app.Window().Get("location").Get("hash").String() == hashOf(id) {
		return
	}
	app.Window().Get("history").Call("replaceState", nil, "", hashOf(id))
}

// autoSelection returns the server to select: none while the list is
// empty, else the selected one if it is listed, else the first one, so that
// a newcomer sees the demo server's tools at once.
func autoSelection(servers []wire.Server, selected string) string {
	if len(servers) == 0 {
		return selected
	}
	for _, s := range servers {
		if s.ID == selected {
			return selected
		}
	}
	return servers[0].ID
}
