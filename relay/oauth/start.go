package oauth

// The start page ties an authorization to the browser of the user who
// started it. The callback is a cross-site navigation from the
// authorization server, on which the relay's SameSite=Strict session
// cookie is not sent, so the callback alone cannot tell whose browser
// brings the code: without this, a user could send someone else the
// authorization URL of her own server and, once they approved (no consent
// screen for a client approved before), hold their token.

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Bounds of the authorizations waiting for their browser.
const (
	maxStartsPerUser = 16   // a user's oldest are dropped past this
	maxStarts        = 4096 // everyone's oldest are dropped past this
)

// Binding cookies.
const (
	bindingCookiePrefix = "switchboard_oauth_"
	// hostCookiePrefix makes an https relay's cookie host-only, Secure and
	// for the whole path, so that no other host (a sibling subdomain) can
	// set it.
	hostCookiePrefix = "__Host-"
	// bindingNameHex is how many hex digits of the state's hash name a cookie.
	bindingNameHex = 16
)

// starts are the authorizations started for a browser
// ([Manager.AuthorizeInBrowser]), by state, until their callback or
// expiry. They are kept in memory only: after a restart the start page
// asks to start again, while a browser already sent on still completes.
type starts struct {
	mu      sync.Mutex
	byState map[string]*pending
}

func newStarts() *starts { return &starts{byState: map[string]*pending{}} }

// add keeps p, dropping expired authorizations and, past the bounds, the
// oldest of p's user or of everyone.
func (s *starts) add(p *pending, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for state, q := range s.byState {
		if !now.Before(q.expires) {
			delete(s.byState, state)
		}
	}
	s.dropOldestLocked(maxStartsPerUser, func(q *pending) bool { return q.user == p.user })
	s.dropOldestLocked(maxStarts, func(*pending) bool { return true })
	s.byState[p.state] = p
}

// dropOldestLocked drops the oldest of the authorizations that match while
// there are limit or more of them.
func (s *starts) dropOldestLocked(limit int, match func(*pending) bool) {
	for {
		var oldest *pending
		n := 0
		for _, q := range s.byState {
			if match(q) {
				n++
				if oldest == nil || q.expires.Before(oldest.expires) {
					oldest = q
				}
			}
		}
		if n < limit {
			return
		}
		delete(s.byState, oldest.state)
	}
}

// get returns user's unexpired authorization of state; false for an
// unknown, finished, expired one or another user's.
func (s *starts) get(state, user string, now time.Time) (*pending, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.byState[state]
	if !ok || p.user != user || !now.Before(p.expires) {
		return nil, false
	}
	return p, true
}

// done forgets the authorization of state: its callback came.
func (s *starts) done(state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byState, state)
}

// forget drops the authorizations of user's server.
func (s *starts) forget(user, server string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for state, p := range s.byState {
		if p.user == user && p.server == server {
			delete(s.byState, state)
		}
	}
}

// binding names and scopes the cookie that binds a browser to an
// authorization: one per state, named by its hash and holding all of it,
// HttpOnly, SameSite=Lax (it must ride the authorization server's redirect
// back, a cross-site top-level navigation), Secure with a host-only name
// on an https relay, and sent to the callback alone otherwise.
type binding struct {
	secure bool
	path   string
}

func newBinding(callback *url.URL) binding {
	if callback.Scheme == "https" {
		return binding{secure: true, path: "/"} // __Host- requires the root path
	}
	path := callback.EscapedPath()
	if path == "" {
		path = "/"
	}
	return binding{path: path}
}

// cookie returns the binding cookie of state, living maxAge.
func (b binding) cookie(state string, maxAge time.Duration) *http.Cookie {
	sum := sha256.Sum256([]byte(state))
	value := hex.EncodeToString(sum[:])
	name := bindingCookiePrefix + value[:bindingNameHex]
	if b.secure {
		name = hostCookiePrefix + name
	}
	return &http.Cookie{
		Name:     name,
		Value:    value,
		Path:     b.path,
		MaxAge:   max(1, int((maxAge+time.Second-1)/time.Second)),
		Secure:   b.secure,
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
	}
}

// bound reports whether r comes from the browser bound to state.
func (b binding) bound(r *http.Request, state string) bool {
	want := b.cookie(state, 0)
	got, err := r.Cookie(want.Name)
	return err == nil && subtle.ConstantTimeCompare([]byte(got.Value), []byte(want.Value)) == 1
}

// clear removes the binding cookie of state from the browser.
func (b binding) clear(w http.ResponseWriter, state string) {
	c := b.cookie(state, 0)
	c.Value, c.MaxAge = "", -1
	http.SetCookie(w, c)
}

// StartHandler serves the start page of an authorization (mount it at
// [StartPath]); [Manager.AuthorizeInBrowser] returns its URL. userOf
// returns the user signed in to the relay in the browser of a request, ""
// for none: the relay's session cookie, which a browser sends only on a
// navigation the relay's own pages start (the dashboard's popup or link),
// not on one from another site (a link in an e-mail).
//
// The state must be one the user started, unexpired and unfinished.
// Then the page sets the state's binding cookie, which [CallbackHandler]
// requires, and redirects to the authorization server. Otherwise it
// changes nothing and shows a plain error page (or redirects to
// Config.ErrorURL).
func (m *Manager) StartHandler(userOf func(*http.Request) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setPageHeaders(w)
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		user := userOf(r)
		if user == "" {
			m.refuse(w, r, http.StatusUnauthorized, "This browser is not signed in to the relay. Open the dashboard, sign in, and start the authorization there.")
			return
		}
		state := r.URL.Query().Get("state")
		p, ok := m.starts.get(state, user, m.now())
		if !ok {
			m.log.Warn("oauth start refused: unknown, finished, expired or another user's authorization", "user", user)
			m.refuse(w, r, http.StatusForbidden, "This authorization is unknown, finished, expired or was started by someone else. Start it again from the dashboard.")
			return
		}
		http.SetCookie(w, m.binding.cookie(state, p.expires.Sub(m.now())))
		http.Redirect(w, r, p.authURL, http.StatusSeeOther)
	})
}

// notBound is the callback's answer to a browser that did not start the
// authorization.
const notBound = "This authorization was not started in this browser; start it again from the dashboard."

// stateOf returns the state of a callback's query, "" when it has no valid one.
func stateOf(q url.Values) string {
	state := q.Get("state")
	if len(state) > maxStateLen || strings.ContainsFunc(state, isControl) {
		return ""
	}
	return state
}
