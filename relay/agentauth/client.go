package agentauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
)

// client is what the server knows of an OAuth client.
type client struct {
	ID           string
	Name         string
	Host         string // the client id's host (a metadata document) or its redirect host
	Document     bool   // identified by a metadata document at its id
	RedirectURIs []string
}

// errNoClient: a client id that names no client.
var errNoClient = errors.New("unknown client")

// lookupClient resolves a client id: an https URL (http on loopback for a
// loopback relay) is a metadata document; anything else must be
// registered.
func (s *Server) lookupClient(ctx context.Context, id string) (client, error) {
	if strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://") {
		return s.fetchDocument(ctx, id)
	}
	rec, err := s.cfg.Store.AgentClientByID(ctx, id, s.cfg.Now())
	if errors.Is(err, store.ErrNotFound) {
		return client{}, errNoClient
	}
	if err != nil {
		return client{}, err
	}
	c := client{ID: rec.ID, Name: rec.Name, RedirectURIs: rec.RedirectURIs}
	if len(rec.RedirectURIs) > 0 {
		if u, err := url.Parse(rec.RedirectURIs[0]); err == nil {
			c.Host = u.Hostname()
		}
	}
	return c, nil
}

// matchRedirect returns the redirect URI to use: uri when it is one of
// c's, exactly or as a loopback http URI on another port (RFC 8252 section
// 7.3). An empty uri is c's only one.
func (c client) matchRedirect(uri string) (string, bool) {
	if uri == "" {
		if len(c.RedirectURIs) == 1 {
			return c.RedirectURIs[0], true
		}
		return "", false
	}
	if slices.Contains(c.RedirectURIs, uri) {
		return uri, true
	}
	got, err := url.Parse(uri)
	if err != nil || got.Scheme != "http" || !urlnorm.IsLoopback(got.Hostname()) {
		return "", false
	}
	for _, r := range c.RedirectURIs {
		want, err := url.Parse(r)
		if err != nil || want.Scheme != "http" || !isLoopbackIP(want.Hostname()) {
			continue
		}
		if want.Hostname() == got.Hostname() && want.EscapedPath() == got.EscapedPath() && want.RawQuery == got.RawQuery {
			return uri, true
		}
	}
	return "", false
}

// isLoopbackIP reports whether host is a loopback IP literal ("localhost"
// is a name, which RFC 8252 advises against for port matching).
func isLoopbackIP(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkRedirectURI checks a redirect URI a client registers: absolute,
// without a fragment, https or http on loopback, or a private-use scheme
// of a native app (RFC 8252 section 7.1).
func checkRedirectURI(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs():
		return fmt.Errorf("redirect URI %q is not an absolute URL", raw)
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return fmt.Errorf("redirect URI %q has a fragment", raw)
	case u.Scheme == "https" && u.Host != "":
		return nil
	case u.Scheme == "http" && urlnorm.IsLoopback(u.Hostname()):
		return nil
	case u.Scheme == "http":
		return fmt.Errorf("redirect URI %q: plain http is allowed only to a loopback address", raw)
	case u.Scheme == "javascript" || u.Scheme == "data" || u.Scheme == "file" || u.Scheme == "vbscript":
		return fmt.Errorf("redirect URI %q: scheme %s is not allowed", raw, u.Scheme)
	case strings.Contains(u.Scheme, "."):
		return nil // reverse-domain private-use scheme
	}
	return fmt.Errorf("redirect URI %q: use https, http on loopback, or a reverse-domain scheme", raw)
}
