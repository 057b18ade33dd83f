package demohost

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Defaults and bounds of the demo.
const (
	// Issuer is the iss of the demo site's tokens (the relay's --host-issuer).
	Issuer = "switchboard-demo-host"
	// DefaultUser is the user the page signs in when it names none.
	DefaultUser = "alice"
	// DefaultTTL is the lifetime of a token when the page asks for none.
	DefaultTTL = 5 * time.Minute
	maxTTL     = time.Hour
	maxUser    = 64
)

// Config configures a demo host.
type Config struct {
	// RelayURL is the relay's address as the browser reaches it.
	RelayURL string
	// Audience is the aud the relay requires (its --jwt-audience).
	Audience string
	// Key signs the tokens; nil makes a new one.
	Key ed25519.PrivateKey
}

// Host is the demo site.
type Host struct {
	cfg Config
	mux *http.ServeMux
}

// New returns the demo site of cfg.
func New(cfg Config) (*Host, error) {
	if cfg.Key == nil {
		_, key, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("demo host key: %w", err)
		}
		cfg.Key = key
	}
	h := &Host{cfg: cfg, mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /{$}", h.page)
	h.mux.HandleFunc("GET /host.js", h.script)
	h.mux.HandleFunc("POST /token", h.token)
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Host) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// PublicKeyPEM returns the public key the relay verifies the demo's tokens
// with, as a PEM file for --host-keys.
func (h *Host) PublicKeyPEM() ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(h.cfg.Key.Public())
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// Mint returns a token for user, valid for ttl.
func (h *Host) Mint(user string, ttl time.Duration) (string, error) {
	now := time.Now()
	return jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.RegisteredClaims{
		Issuer:    Issuer,
		Audience:  jwt.ClaimStrings{h.cfg.Audience},
		Subject:   user,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
	}).SignedString(h.cfg.Key)
}

// token is the demo's token endpoint: a site's backend mints a token for
// the user of its session; the demo takes the user the page names.
func (h *Host) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	user := r.PostForm.Get("user")
	if user == "" || len(user) > maxUser {
		http.Error(w, "user: 1 to 64 bytes", http.StatusBadRequest)
		return
	}
	ttl := DefaultTTL
	if s := r.PostForm.Get("ttl"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || time.Duration(n)*time.Second > maxTTL {
			http.Error(w, "ttl: 1 to 3600 seconds", http.StatusBadRequest)
			return
		}
		ttl = time.Duration(n) * time.Second
	}
	tok, err := h.Mint(user, ttl)
	if err != nil {
		http.Error(w, "mint failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte(tok))
}

// pageData fills the host page.
type pageData struct {
	Relay, User, View, Server, TTL, Scheme string
	Refresh                                bool
}

// page serves the host page; its query chooses the user, the view (and
// server), the token lifetime in seconds (ttl), whether the page hands a
// fresh token when asked (refresh=0 hands one token only) and the colour
// scheme.
func (h *Host) page(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := pageData{Relay: h.cfg.RelayURL, User: q.Get("user"), View: q.Get("view"), Server: q.Get("server"),
		TTL: q.Get("ttl"), Scheme: q.Get("scheme"), Refresh: q.Get("refresh") != "0"}
	if d.User == "" {
		d.User = DefaultUser
	}
	if d.View == "" {
		d.View = "dashboard"
	}
	if d.Scheme == "" {
		d.Scheme = "auto"
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := pageTemplate.Execute(w, d); err != nil {
		http.Error(w, "page failed", http.StatusInternalServerError)
	}
}

// script serves the page's script.
func (h *Host) script(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte(hostScript))
}

var pageTemplate = template.Must(template.New("host").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Example site with Switchboard embedded</title>
<link rel="icon" href="{{.Relay}}/web/icons/icon.svg">
<style>
  body { font-family: Georgia, serif; margin: 0; background: #f3efe6; color: #2b2a27; }
  header { display: flex; gap: 16px; align-items: center; padding: 12px 24px; background: #2b2a27; color: #f3efe6; }
  header h1 { font-size: 20px; margin: 0; flex: 1; }
  .badge { background: #c0392b; color: #fff; border-radius: 999px; padding: 2px 10px; font-family: sans-serif; }
  main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(220px, 1fr); gap: 24px; padding: 24px; }
  #switchboard-embed { background: #fff; border-radius: 12px; box-shadow: 0 2px 12px rgb(0 0 0 / 12%); overflow: hidden; }
  aside ol { font-family: monospace; font-size: 12px; padding-left: 18px; }
</style>
</head>
<body data-relay="{{.Relay}}" data-user="{{.User}}" data-view="{{.View}}" data-server="{{.Server}}"
      data-ttl="{{.TTL}}" data-scheme="{{.Scheme}}" data-refresh="{{.Refresh}}">
<header>
  <h1>Example site</h1>
  <span>Signed in as <strong id="host-user">{{.User}}</strong></span>
  <span>Questions <span id="host-badge" class="badge">0</span></span>
</header>
<main>
  <div id="switchboard-embed"></div>
  <aside>
    <h2>Events from the embed</h2>
    <ol id="host-events"></ol>
  </aside>
</main>
<script src="{{.Relay}}/embed.js"></script>
<script src="/host.js"></script>
</body>
</html>
`))

// hostScript embeds the dashboard as the README shows, and records what it
// hears (window.hostEvents) for people and tests.
const hostScript = `(function () {
  var d = document.body.dataset;
  window.hostEvents = [];
  window.hostTokens = 0;
  function fetchToken() {
    var body = new URLSearchParams({user: d.user});
    if (d.ttl) body.set("ttl", d.ttl);
    return fetch("/token", {method: "POST", body: body}).then(function (r) {
      if (!r.ok) throw new Error("token endpoint: " + r.status);
      window.hostTokens++;
      return r.text();
    });
  }
  var sb = Switchboard.embed({
    container: "#switchboard-embed",
    view: d.view,
    server: d.server,
    height: "640px",
    token: d.refresh === "true" ? fetchToken : undefined,
    theme: {colorScheme: d.scheme},
    onEvent: function (ev) {
      window.hostEvents.push(ev);
      var li = document.createElement("li");
      li.textContent = JSON.stringify(ev);
      document.getElementById("host-events").appendChild(li);
      if (ev.type === "questions") document.getElementById("host-badge").textContent = String(ev.count);
    }
  });
  if (d.refresh !== "true") fetchToken().then(sb.setToken);
  window.sb = sb;
  window.fetchToken = fetchToken;
})();`
