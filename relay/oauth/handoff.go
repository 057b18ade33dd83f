package oauth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
)

// An embedded dashboard has no session cookie: the relay's start page
// cannot tell whose browser opened it. Its popup opens the hand-off page
// instead ([HandoffPath]), which asks the window that opened it (the embed,
// on the relay's origin) for the token its host handed over, and shows it
// to [Manager.TokenStartHandler] in an Authorization header with the
// state. That sets the state's binding cookie in the popup, a first-party
// window of the relay, and returns the authorization server's URL, which
// the page opens after dropping its opener. A link to the hand-off page
// sent to someone else does nothing: their window has no opener holding
// the user's token. The token never travels in a URL.

// HandoffPath is where the relay serves [Manager.HandoffHandler].
const HandoffPath = "/oauth/handoff"

// maxStartForm bounds the body of a token start: a state and its name.
const maxStartForm = 4 << 10

// handoffScript runs the hand-off page (see the package comment above).
const handoffScript = `(function () {
  var out = document.getElementById("handoff-status");
  var state = new URLSearchParams(location.search).get("state") || "";
  function fail(msg) { out.textContent = msg; }
  if (!window.opener || !state) {
    fail("This page continues an authorization started in an embedded Switchboard. Start it again there.");
    return;
  }
  var timer = setTimeout(function () {
    fail("The page that started this authorization did not answer. Start it again there.");
  }, 10000);
  window.addEventListener("message", function (ev) {
    var d = ev.data;
    if (ev.origin !== location.origin || ev.source !== window.opener ||
        !d || d.type !== "switchboard:handoff-token" || typeof d.token !== "string") {
      return;
    }
    clearTimeout(timer);
    fetch("` + StartPath + `", {
      method: "POST",
      headers: {"Authorization": "Bearer " + d.token, "Content-Type": "application/x-www-form-urlencoded"},
      body: "state=" + encodeURIComponent(state),
      credentials: "same-origin",
      cache: "no-store"
    }).then(function (r) {
      return r.json().then(function (j) { return {ok: r.ok, j: j}; });
    }).then(function (res) {
      if (!res.ok || typeof res.j.url !== "string") {
        fail(res.j.error || "The relay refused to start this authorization.");
        return;
      }
      window.opener = null;
      location.replace(res.j.url);
    }).catch(function () {
      fail("The relay could not be reached. Start the authorization again.");
    });
  });
  window.opener.postMessage({type: "switchboard:handoff-request"}, location.origin);
})();`

// handoffPage is the hand-off page: a line of status and the script.
const handoffPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Authorize</title>
</head>
<body>
<h1>Authorize</h1>
<p id="handoff-status" role="status">Starting the authorization…</p>
<script>` + handoffScript + `</script>
</body>
</html>
`

// handoffCSP allows the page's one script, by its hash, and its one request.
var handoffCSP = func() string {
	sum := sha256.Sum256([]byte(handoffScript))
	return "default-src 'none'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}()

// HandoffHandler serves the hand-off page (mount it at [HandoffPath]).
func (m *Manager) HandoffHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setPageHeaders(w)
		w.Header().Set("Content-Security-Policy", handoffCSP)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(handoffPage))
	})
}

// TokenStartHandler is the start page for the hand-off page: a POST of the
// state whose user userOf reads from the request's bearer token. It checks
// what [Manager.StartHandler] checks, sets the same binding cookie and
// answers {"url": the authorization server's URL}, or {"error": why}.
func (m *Manager) TokenStartHandler(userOf func(*http.Request) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setPageHeaders(w)
		user := userOf(r)
		if user == "" {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "The relay did not accept the sign-in of the page that started this authorization. Sign in there and start it again."})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxStartForm)
		if err := r.ParseForm(); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "The request to start this authorization was malformed."})
			return
		}
		state := r.PostForm.Get("state")
		p, ok := m.starts.get(state, user, m.now())
		if !ok {
			m.log.Warn("oauth token start refused: unknown, finished, expired or another user's authorization", "user", user)
			writeJSON(w, http.StatusForbidden, map[string]string{"error": "This authorization is unknown, finished, expired or was started by someone else. Start it again."})
			return
		}
		http.SetCookie(w, m.binding.cookie(state, p.expires.Sub(m.now())))
		writeJSON(w, http.StatusOK, map[string]string{"url": p.authURL})
	})
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
