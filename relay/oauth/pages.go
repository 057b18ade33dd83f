package oauth

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// closeScript closes the popup once the authorization is done; the
// dashboard learns the outcome over its WebSocket.
const closeScript = `window.close();`

// pageTemplate is the callback's page: plain text, no external resources.
var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{{.Title}}</title>
</head>
<body>
<h1>{{.Title}}</h1>
<p>{{.Message}}</p>
<p>You can close this window.</p>
{{if .Close}}<script>` + closeScript + `</script>{{end}}
</body>
</html>
`))

// pageCSP allows nothing but the one inline script, by its hash.
var pageCSP = func() string {
	sum := sha256.Sum256([]byte(closeScript))
	return "default-src 'none'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}()

type page struct {
	Title, Message string
	Close          bool
}

// CallbackHandler serves the redirect of the authorization server (mount it
// at [CallbackPath]). The browser must carry the state's binding cookie,
// which the start page ([Manager.StartHandler]) set in the browser of the
// user who started the authorization; otherwise nothing changes and the
// state stays usable. Then it passes the URL as the browser reached the
// relay to [Manager.Callback] (the scheme is https when the request came
// over TLS or a proxy says so in X-Forwarded-Proto) and clears the cookie.
// On success it shows a page that closes the popup, or redirects to
// Config.SuccessURL; on failure a plain error page, or a redirect to
// Config.ErrorURL with the sanitized reason in its error parameter.
func (m *Manager) CallbackHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setPageHeaders(w)
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if state := stateOf(r.URL.Query()); state != "" {
			if !m.binding.bound(r, state) {
				m.log.Warn("oauth callback refused: the browser did not start this authorization")
				m.refuse(w, r, http.StatusBadRequest, notBound)
				return
			}
			m.binding.clear(w, state)
		}
		received := &url.URL{Scheme: requestScheme(r), Host: r.Host, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}
		err := m.Callback(r.Context(), received)
		if err == nil {
			if m.cfg.SuccessURL != "" {
				http.Redirect(w, r, m.cfg.SuccessURL, http.StatusSeeOther)
				return
			}
			writePage(w, http.StatusOK, page{Title: "Authorized", Message: "The relay holds the authorization; the dashboard shows the server connecting.", Close: true})
			return
		}
		msg := "The authorization could not be completed."
		var ce *callbackError
		if errors.As(err, &ce) {
			msg = err.Error()
		}
		m.refuse(w, r, http.StatusBadRequest, msg)
	})
}

// setPageHeaders sets the headers of every page of the flow.
func setPageHeaders(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("X-Content-Type-Options", "nosniff")
}

// refuse shows why the flow stopped: a plain error page with status, or a
// redirect to Config.ErrorURL with msg, sanitized, as its error parameter.
func (m *Manager) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	msg = wire.Sanitize(msg, wire.MaxErrorMessage)
	if m.cfg.ErrorURL != "" {
		http.Redirect(w, r, withQuery(m.cfg.ErrorURL, "error", msg), http.StatusSeeOther)
		return
	}
	writePage(w, status, page{Title: "Authorization failed", Message: msg})
}

// writePage renders p with its security headers.
func writePage(w http.ResponseWriter, status int, p page) {
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, p); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Security-Policy", pageCSP)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// requestScheme is the scheme the browser used to reach the relay.
func requestScheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	if strings.EqualFold(strings.TrimSpace(proto), "https") {
		return "https"
	}
	return "http"
}

// withQuery sets one query parameter of raw.
func withQuery(raw, key, value string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}
