package service

import (
	"net/url"
	"strings"
)

// The public URL is the relay's address as people reach it, often through
// an HTTPS reverse proxy that talks plain HTTP to the relay: its origin is
// the dashboard's own (allowed on the WebSocket without --allowed-origins),
// and an https one makes the session cookie Secure.

// publicOrigin is the origin of the public URL, as a list of zero or one
// for the Origin allow-list.
func publicOrigin(publicURL string) []string {
	u, err := url.Parse(publicURL)
	if publicURL == "" || err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil
	}
	return []string{u.Scheme + "://" + u.Host}
}

// publicHTTPS reports whether people reach the relay over HTTPS.
func publicHTTPS(publicURL string) bool {
	return strings.HasPrefix(strings.ToLower(publicURL), "https://")
}
