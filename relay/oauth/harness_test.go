package oauth_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/conn/conntest"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// waitFor bounds every wait of these tests.
const waitFor = 15 * time.Second

// testCallback is the relay's callback in tests; nothing listens there, the
// tests hand the redirect to Manager.Callback.
const testCallback = "http://127.0.0.1:1" + oauth.CallbackPath

// world is an authorization server, a protected MCP server and a relay
// side (store, manager) over them.
type world struct {
	t     *testing.T
	as    *oauthfixture.AuthServer
	rs    *oauthfixture.Resource
	dir   string
	st    *store.Store
	oauth *store.OAuthStore
	clock *clock
	logs  *syncBuffer
	mgr   *oauth.Manager
	cfg   oauth.Config // the manager's, for restarts
	// wrap, when set, wraps the transport of the manager's HTTP client
	// from the next restart on.
	wrap func(http.RoundTripper) http.RoundTripper
}

func newWorld(t *testing.T, asCfg oauthfixture.AuthConfig, rsCfg oauthfixture.ResourceConfig) *world {
	t.Helper()
	return newWorldWith(t, asCfg, rsCfg, nil)
}

// newWorldWith is newWorld with the manager's configuration changed by tweak.
func newWorldWith(t *testing.T, asCfg oauthfixture.AuthConfig, rsCfg oauthfixture.ResourceConfig, tweak func(*oauth.Config)) *world {
	t.Helper()
	w := &world{t: t, dir: filepath.Join(t.TempDir(), "data"), clock: &clock{now: time.Now()}, logs: &syncBuffer{}}
	w.as = oauthfixture.StartAuthServer(t, asCfg)
	rsCfg.AuthServer = w.as
	w.rs = oauthfixture.StartResource(t, rsCfg)
	w.openStore()
	w.cfg = oauth.Config{CallbackURL: testCallback}
	if tweak != nil {
		tweak(&w.cfg)
	}
	w.restart()
	return w
}

// openStore opens the data directory.
func (w *world) openStore() {
	w.t.Helper()
	st, err := store.Open(context.Background(), w.dir)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { st.Close() })
	sealer, err := store.LoadSealer(w.dir)
	if err != nil {
		w.t.Fatal(err)
	}
	w.st, w.oauth = st, st.OAuth(sealer)
}

// restart builds a new manager over the same store and configuration, as a
// relay restart does.
func (w *world) restart() {
	w.t.Helper()
	cfg := w.cfg
	cfg.Store = w.oauth
	cfg.HTTPClient = netguard.Policy{AllowLoopback: true}.Client(0)
	if w.wrap != nil {
		cfg.HTTPClient.Transport = w.wrap(cfg.HTTPClient.Transport)
	}
	cfg.Logger = slog.New(slog.NewTextHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.Now = w.clock.Now
	mgr, err := oauth.NewManager(cfg)
	if err != nil {
		w.t.Fatal(err)
	}
	w.mgr = mgr
}

// connect starts a connection of user to the server at serverURL with
// OAuth; it closes with the test.
func (w *world) connect(user, server, serverURL string, transport wire.Transport) (*conn.Conn, *recorder) {
	w.t.Helper()
	w.register(user, server, serverURL)
	r := newRecorder(w.t)
	c := conn.Start(conn.Config{
		ID:             server,
		Name:           server,
		URL:            serverURL,
		Transport:      transport,
		HTTPClient:     netguard.Policy{AllowLoopback: true}.Client(0),
		Logger:         slog.New(slog.NewTextHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		HealthInterval: time.Minute,
		RetryMin:       50 * time.Millisecond,
		RetryMax:       200 * time.Millisecond,
		Auth:           w.mgr.For(user, server, serverURL),
	}, r.Report)
	w.t.Cleanup(func() { c.Close() })
	return c, r
}

// register registers user's server in the store, as the session does
// before it dials: OAuth records belong to a registered server.
func (w *world) register(user, server, serverURL string) {
	w.t.Helper()
	srv := store.Server{User: user, ID: server, Name: server, URL: serverURL, Transport: string(wire.TransportAuto)}
	if err := w.st.PutServer(context.Background(), srv); err != nil {
		w.t.Fatal(err)
	}
}

// authorize starts an authorization of user's server, approves it at the
// authorization server and returns the callback URL, not yet delivered.
func (w *world) authorize(user, server string) (authURL string, callback *url.URL) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	authURL, err := w.mgr.Authorize(ctx, user, server)
	if err != nil {
		w.t.Fatalf("Authorize: %v", err)
	}
	callback, err = oauthfixture.Approve(ctx, authURL)
	if err != nil {
		w.t.Fatalf("approve: %v", err)
	}
	return authURL, callback
}

// complete authorizes user's server and delivers the callback.
func (w *world) complete(user, server string) (authURL string) {
	w.t.Helper()
	authURL, callback := w.authorize(user, server)
	if err := w.mgr.Callback(context.Background(), callback); err != nil {
		w.t.Fatalf("Callback: %v", err)
	}
	return authURL
}

// autoApprove authorizes, as a headless person does, every time user's
// server at the world's resource server waits for a person: its connection
// (r reports its states) shows authenticating and its OAuth status needs
// an authorization. It follows both until the test ends, since a need that
// comes while the connection already shows authenticating (a step-up right
// after the last) changes no state the connection reports, and a need the
// connection gave up on is never shown. It returns how many it started.
func (w *world) autoApprove(user, server string, r *recorder) *counter {
	n := &counter{}
	client := w.mgr.For(user, server, w.rs.URL())
	var mu sync.Mutex
	showing := false // the connection shows authenticating
	wake := make(chan struct{}, 1)
	for _, st := range []wire.ServerState{wire.StateConnecting, wire.StateConnected, wire.StateDiscovering,
		wire.StateReady, wire.StateFailed, wire.StateAuthenticating} {
		r.OnEnter(st, func() {
			mu.Lock()
			showing = st == wire.StateAuthenticating
			mu.Unlock()
			select {
			case wake <- struct{}{}:
			default:
			}
		})
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	w.t.Cleanup(func() { close(done); <-stopped })
	go func() {
		defer close(stopped)
		failed := false // approving the need in sight failed: wait until it clears
		for {
			st, changed := client.Watch()
			mu.Lock()
			waiting := showing
			mu.Unlock()
			switch {
			case !st.Required:
				failed = false
			case waiting && !failed:
				// A need still seen after an approval is a new one: the
				// approval's callback ended the one it answered.
				n.add()
				failed = !w.approve(user, server)
			}
			select {
			case <-changed:
			case <-wake:
			case <-done:
				return
			}
		}
	}()
	return n
}

// approve authorizes user's server at the authorization server and
// delivers the callback; it reports whether all of it succeeded (a
// failure leaves the server waiting for a person).
func (w *world) approve(user, server string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	u, err := w.mgr.Authorize(ctx, user, server)
	if err != nil {
		return false
	}
	cb, err := oauthfixture.Approve(ctx, u)
	if err != nil {
		return false
	}
	return w.mgr.Callback(ctx, cb) == nil
}

// token returns user's stored token for server.
func (w *world) token(user, server string) (store.OAuthToken, bool) {
	w.t.Helper()
	tok, ok, err := w.oauth.Token(context.Background(), user, server)
	if err != nil {
		w.t.Fatal(err)
	}
	return tok, ok
}

// clock is a settable clock for the manager.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) add() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func (c *counter) get() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// recorder collects the states a connection reports.
type recorder = conntest.Recorder[conn.State]

func newRecorder(t *testing.T) *recorder { return conntest.NewRecorder(t, facts) }

// facts is what a recorder reads of a state.
func facts(s conn.State) conntest.Facts {
	f := conntest.Facts{State: s.State, Error: s.Error}
	if s.Auth != nil {
		f.AuthError = s.Auth.Error
	}
	return f
}

// roundTripper is a function serving as an http.RoundTripper.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// holdTokenRequests makes the manager's token requests of grant wait,
// from the next restart on: each one is announced on the returned channel
// and goes on when release is closed.
func (w *world) holdTokenRequests(grant string, release <-chan struct{}) <-chan struct{} {
	arrived := make(chan struct{}, 1)
	w.wrap = func(base http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/token") && isGrant(r, grant) {
				arrived <- struct{}{}
				<-release
			}
			return base.RoundTrip(r)
		})
	}
	return arrived
}

// isGrant reports whether the token request r asks for grant, leaving its
// body readable.
func isGrant(r *http.Request, grant string) bool {
	body, err := r.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	raw, _ := io.ReadAll(body)
	form, _ := url.ParseQuery(string(raw))
	return form.Get("grant_type") == grant
}
