package oauthfixture

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Query parameters a headless client adds to an authorization URL to decide
// without the consent page.
const (
	ParamApprove = "approve"
	ParamDeny    = "deny"
)

// consentPage shows the request and the two buttons a person (or a browser
// test) clicks: #approve and #deny.
var consentPage = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Authorize {{.ClientID}}</title></head>
<body>
<h1>Authorize access</h1>
<p>The application <strong id="client">{{.ClientID}}</strong> asks to access
<strong id="resource">{{.Resource}}</strong>{{if .Scopes}} with the scopes
<strong id="scopes">{{.Scopes}}</strong>{{end}}.</p>
<form method="post" action="{{.Action}}">
<input type="hidden" name="request" value="{{.Request}}">
<button id="approve" type="submit" name="decision" value="approve">Approve</button>
<button id="deny" type="submit" name="decision" value="deny">Deny</button>
</form>
</body>
</html>
`))

// serveAuthorize validates an authorization request. Errors about the client
// or the redirect URI are shown; others go back to the client. A valid
// request gets the consent page, or a decision at once with approve or deny.
func (a *AuthServer) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	a.stats.Authorizations++
	a.authReqs = append(a.authReqs, AuthRequest{Query: q})
	a.mu.Unlock()

	clientID, redirectURI := q.Get("client_id"), q.Get("redirect_uri")
	if err := a.checkRedirect(clientID, redirectURI); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := &authorization{clientID: clientID, redirectURI: redirectURI, state: q.Get("state"),
		challenge: q.Get("code_challenge"), resource: q.Get("resource"), scopes: strings.Fields(q.Get("scope"))}
	switch {
	case q.Get("response_type") != "code":
		a.redirectError(w, r, req, "unsupported_response_type", "only the code flow is supported")
		return
	case req.challenge == "" || q.Get("code_challenge_method") != "S256":
		a.redirectError(w, r, req, "invalid_request", "PKCE with S256 is required")
		return
	case req.resource == "":
		a.redirectError(w, r, req, "invalid_target", "the resource parameter is required")
		return
	}
	if bad := a.unsupportedScopes(req.scopes); len(bad) > 0 {
		a.redirectError(w, r, req, "invalid_scope", "unsupported scopes: "+strings.Join(bad, " "))
		return
	}
	switch {
	case q.Has(ParamApprove):
		a.approve(w, r, req)
		return
	case q.Has(ParamDeny):
		a.redirectError(w, r, req, "access_denied", "the user denied the request")
		return
	}
	id := random("req")
	a.mu.Lock()
	a.pending[id] = req
	a.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	consentPage.Execute(w, map[string]string{
		"ClientID": clientID, "Resource": req.resource, "Scopes": strings.Join(req.scopes, " "),
		"Action": a.cfg.PathPrefix + "/authorize/decision", "Request": id,
	})
}

// serveDecision takes the consent page's answer.
func (a *AuthServer) serveDecision(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	req, ok := a.pending[r.PostForm.Get("request")]
	delete(a.pending, r.PostForm.Get("request"))
	a.mu.Unlock()
	if !ok {
		http.Error(w, "this authorization request is unknown or was already decided", http.StatusBadRequest)
		return
	}
	if r.PostForm.Get("decision") == "approve" {
		a.approve(w, r, req)
		return
	}
	a.redirectError(w, r, req, "access_denied", "the user denied the request")
}

// approve issues a code and sends the browser back to the client.
func (a *AuthServer) approve(w http.ResponseWriter, r *http.Request, req *authorization) {
	code := random("code")
	a.mu.Lock()
	a.codes[code] = &grant{clientID: req.clientID, redirectURI: req.redirectURI, challenge: req.challenge,
		resource: req.resource, scopes: withheld(req.scopes, a.cfg.WithheldScopes), expires: time.Now().Add(codeLifetime)}
	a.mu.Unlock()
	a.redirect(w, r, req, url.Values{"code": {code}})
}

// redirectError sends an OAuth error back to the client (RFC 6749 4.1.2.1).
func (a *AuthServer) redirectError(w http.ResponseWriter, r *http.Request, req *authorization, code, description string) {
	a.redirect(w, r, req, url.Values{"error": {code}, "error_description": {description}})
}

// redirect sends the browser to the client's redirect URI with params, the
// state and, when advertised, iss.
func (a *AuthServer) redirect(w http.ResponseWriter, r *http.Request, req *authorization, params url.Values) {
	u, _ := url.Parse(req.redirectURI) // checked by checkRedirect
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if req.state != "" {
		q.Set("state", req.state)
	}
	if a.cfg.IssParameter {
		q.Set("iss", a.issuer)
	}
	u.RawQuery = q.Encode()
	status := http.StatusFound
	if r.Method == http.MethodPost {
		status = http.StatusSeeOther
	}
	http.Redirect(w, r, u.String(), status)
}

// checkRedirect checks that redirectURI is registered for clientID (for a
// metadata document client id, listed in its document).
func (a *AuthServer) checkRedirect(clientID, redirectURI string) error {
	if u, err := url.Parse(redirectURI); err != nil || !u.IsAbs() {
		return fmt.Errorf("invalid redirect_uri %q", redirectURI)
	}
	a.mu.Lock()
	c, ok := a.clients[clientID]
	a.mu.Unlock()
	if ok {
		if !slices.Contains(c.RedirectURIs, redirectURI) {
			return fmt.Errorf("redirect_uri %q is not registered for client %q", redirectURI, clientID)
		}
		return nil
	}
	if a.cfg.CIMD && strings.HasPrefix(clientID, "https://") {
		if a.cfg.FetchClientMetadata == nil {
			return nil
		}
		uris, err := a.cfg.FetchClientMetadata(clientID)
		if err != nil {
			return fmt.Errorf("client metadata document %q: %v", clientID, err)
		}
		if !slices.Contains(uris, redirectURI) {
			return fmt.Errorf("redirect_uri %q is not in the metadata document of %q", redirectURI, clientID)
		}
		return nil
	}
	return fmt.Errorf("%w %q", errNoClient, clientID)
}

// withheld returns scopes without those never granted.
func withheld(scopes, never []string) []string {
	var out []string
	for _, s := range scopes {
		if !slices.Contains(never, s) {
			out = append(out, s)
		}
	}
	return out
}

// unsupportedScopes returns the scopes the server does not know.
func (a *AuthServer) unsupportedScopes(scopes []string) []string {
	if len(a.cfg.ScopesSupported) == 0 {
		return nil
	}
	var bad []string
	for _, s := range scopes {
		if !slices.Contains(a.cfg.ScopesSupported, s) {
			bad = append(bad, s)
		}
	}
	return bad
}

// Approve decides an authorization URL as a person clicking Approve would:
// it requests the URL with approve=1 and returns where the server sends the
// browser (the client's callback, with the code and state), without going
// there.
func Approve(ctx context.Context, authURL string) (*url.URL, error) {
	return decide(ctx, authURL, ParamApprove)
}

// Deny decides an authorization URL as a person clicking Deny would.
func Deny(ctx context.Context, authURL string) (*url.URL, error) {
	return decide(ctx, authURL, ParamDeny)
}

func decide(ctx context.Context, authURL, param string) (*url.URL, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, fmt.Errorf("authorization URL: %w", err)
	}
	q := u.Query()
	q.Set(param, "1")
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		return nil, fmt.Errorf("authorization endpoint answered %s, not a redirect", resp.Status)
	}
	return resp.Location()
}
