package authn

import (
	"html/template"
	"net/http"
)

// page is the text of a login error page.
type page struct {
	Title   string
	Message string
	// NewLink adds the advice to run `switchboard login` for a new link.
	NewLink bool
}

// The login error pages.
var (
	pageNoCode      = page{"No login code", "This link has no login code.", true}
	pageUnknown     = page{"Unknown login link", "This login link is not known to the relay.", true}
	pageUsed        = page{"Login link already used", "Each login link works once, and this one has been used.", true}
	pageExpired     = page{"Login link expired", "This login link is too old.", true}
	pageWrongMethod = page{"Method not allowed", "Open the login link in a browser.", false}
	pageInternal    = page{"Login failed", "The relay could not complete the login; its log says why. Try again.", false}
)

// pageTemplate escapes everything it is given.
var pageTemplate = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Switchboard: {{.Title}}</title></head>
<body>
<h1>{{.Title}}</h1>
<p>{{.Message}}</p>
{{if .NewLink}}<p>Run <code>switchboard login</code> for a new link.</p>{{end}}
</body>
</html>
`))

// writePage answers with status and a plain HTML page p. The page loads
// nothing and cannot be framed.
func writePage(w http.ResponseWriter, status int, p page) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	// The client may be gone; there is no one left to tell.
	_ = pageTemplate.Execute(w, p)
}
