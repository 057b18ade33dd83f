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
	// Provider, when set, is offered as a link to sign in.
	Provider *ProviderLink
}

// The login error pages.
var (
	pageNoCode      = page{Title: "No login code", Message: "This link has no login code.", NewLink: true}
	pageUnknown     = page{Title: "Unknown login link", Message: "This login link is not known to the relay.", NewLink: true}
	pageUsed        = page{Title: "Login link already used", Message: "Each login link works once, and this one has been used.", NewLink: true}
	pageExpired     = page{Title: "Login link expired", Message: "This login link is too old.", NewLink: true}
	pageWrongMethod = page{Title: "Method not allowed", Message: "Open the login link in a browser."}
	pageInternal    = page{Title: "Login failed", Message: "The relay could not complete the login; its log says why. Try again."}
)

// pageTemplate escapes everything it is given.
var pageTemplate = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Switchboard: {{.Title}}</title></head>
<body>
<h1>{{.Title}}</h1>
<p>{{.Message}}</p>
{{with .Provider}}<p><a id="signin-provider" href="{{.URL}}">Sign in with {{.Name}}</a></p>
<p>On the relay's own machine, <code>switchboard login</code> prints a one-time link instead.</p>{{end}}
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
