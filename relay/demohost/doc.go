// Package demohost is a small site that embeds the dashboard, to see the
// embed work on one machine (switchboard serve --demo-host) and to test it:
// a host page that loads the relay's /embed.js, and the token endpoint a
// real site would have in its backend, which mints a short-lived JWT for
// its signed-in user with the site's own Ed25519 key. The relay verifies
// these tokens with the site's public key (--host-keys) and issuer
// (--host-issuer), and keeps their users apart from its own as host:<sub>.
//
// The demo has no sign-in of its own: the page says which user it is (the
// user query parameter) and the token endpoint believes it. A real site
// mints tokens only for the user of its own session.
package demohost
