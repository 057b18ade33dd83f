package signin

import (
	"html/template"
	"net/http"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// page is the text of a sign-in page.
type page struct {
	Title   string
	Message string
	// Home links to the dashboard and goes there at once.
	Home bool
	// Next, when set, is where the page goes at once instead.
	Next string
}

// The sign-in pages. None shows a token or a stack trace.
var (
	pageSignedIn   = page{Title: "Signed in", Message: "You are signed in.", Home: true}
	pageStale      = page{Title: "Sign-in expired", Message: "This sign-in was not started in this browser, was already finished, or took too long. Start again from the login page."}
	pageExchange   = page{Title: "Sign-in failed", Message: "The relay could not redeem the identity provider's answer; its log says why. Try again."}
	pageBadToken   = page{Title: "Sign-in failed", Message: "The identity provider's ID token did not verify; the relay's log says why. Try again."}
	pageInternal   = page{Title: "Sign-in failed", Message: "The relay could not start your session; its log says why. Try again."}
	pageBusy       = page{Title: "Too many sign-ins", Message: "Too many sign-ins are in progress. Try again in a few minutes."}
	pageNoEmail    = page{Title: "Not allowed", Message: "This relay admits people by email domain, and your identity provider did not give your email address."}
	pageUnverified = page{Title: "Not allowed", Message: "This relay admits people by email domain, and your identity provider has not verified your email address."}
	pageNoGroup    = page{Title: "Not allowed", Message: "You are not a member of any group allowed to use this relay. Ask its operator to be added."}
)

// domainRefused is the page for a verified email outside the allowed domains.
func domainRefused(domain string) page {
	return page{Title: "Not allowed", Message: "People of the email domain " + wire.Sanitize(domain, 100) + " may not use this relay. Sign in with an account of an allowed domain, or ask its operator."}
}

// providerRefused is the page for an error the provider redirected back with.
func providerRefused(code string) page {
	return page{Title: "Sign-in refused", Message: "The identity provider did not sign you in (" + wire.Sanitize(code, 60) + ")."}
}

// pageTemplate escapes everything it is given.
var pageTemplate = template.Must(template.New("signin").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8">{{if .Home}}<meta http-equiv="refresh" content="0;url=/">{{else if .Next}}<meta http-equiv="refresh" content="0;url={{.Next}}">{{end}}<title>Switchboard: {{.Title}}</title></head>
<body>
<h1>{{.Title}}</h1>
<p>{{.Message}}</p>
{{if .Home}}<p><a href="/">Open the dashboard</a></p>{{else if .Next}}<p><a href="{{.Next}}">Continue</a></p>{{else}}<p><a href="/login">Back to the login page</a></p>{{end}}
</body>
</html>
`))

// writePage answers with status and page p; the page loads nothing and
// cannot be framed.
func writePage(w http.ResponseWriter, status int, p page) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = pageTemplate.Execute(w, p)
}
