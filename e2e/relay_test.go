package e2e

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/service"
)

// Relay tuning for tests: a server that fails or recovers shows it within a
// second or two.
const (
	healthInterval    = 300 * time.Millisecond
	retryMin          = 200 * time.Millisecond
	retryMax          = time.Second
	shutdownTimeout   = 5 * time.Second
	readHeaderTimeout = 5 * time.Second
)

// relay is a relay served in-process on 127.0.0.1, restartable on the same
// port and data directory. Start and stop it from the test that made it;
// helpers that take a testing.TB may run in its subtests.
type relay struct {
	t    testing.TB
	cfg  service.Config
	addr string // host:port, fixed by the first start

	svc      *service.Service // nil while stopped
	srv      *http.Server
	done     chan struct{} // closed when srv's Serve returns
	internal *http.Server  // a replica's internal address (Config.ReplicaAddr); nil for others
}

// startRelay starts a relay with an empty data directory; it stops when the
// test ends, and its log is printed if the test failed.
func startRelay(t testing.TB) *relay {
	t.Helper()
	return startRelayWith(t, nil)
}

// startRelayWith is startRelay with a configuration that configure, when
// not nil, changes before the first start.
func startRelayWith(t testing.TB, configure func(*service.Config)) *relay {
	t.Helper()
	r := &relay{
		t: t,
		cfg: service.Config{
			DataDir:        t.TempDir(),
			AllowLoopback:  true,
			HealthInterval: healthInterval,
			RetryMin:       retryMin,
			RetryMax:       retryMax,
			Logger:         testLogger(t, "relay"),
		},
		addr: freeLoopbackAddr(t),
	}
	// The relay's URL is known before it starts, so that it may serve
	// MCP Apps on a second listener, another site (localhost) than the
	// dashboard's (127.0.0.1).
	r.cfg.PublicURL = "http://" + r.addr
	apps, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen for the Apps sandbox: %v", err)
	}
	r.cfg.AppsOrigin = fmt.Sprintf("http://localhost:%d", apps.Addr().(*net.TCPAddr).Port)
	if configure != nil {
		configure(&r.cfg)
	}
	r.start()
	t.Cleanup(r.stop)
	if h := r.svc.AppsHandler(); h != nil { // the same after a restart: it holds only the configuration
		srv := &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout}
		go srv.Serve(apps)
		t.Cleanup(func() { srv.Close() })
	} else {
		apps.Close()
	}
	return r
}

// start opens the data directory and listens, on the port of the last run
// if there was one.
func (r *relay) start() {
	r.t.Helper()
	svc, err := service.New(context.Background(), r.cfg)
	if err != nil {
		r.t.Fatalf("start relay: %v", err)
	}
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		svc.Close()
		r.t.Fatalf("relay listen on %s: %v", r.addr, err)
	}
	r.addr = ln.Addr().String()
	r.svc = svc
	if h := svc.InternalHandler(); h != nil {
		iln, err := net.Listen("tcp", r.cfg.ReplicaAddr)
		if err != nil {
			svc.Close()
			ln.Close()
			r.t.Fatalf("replica listen on %s: %v", r.cfg.ReplicaAddr, err)
		}
		r.internal = &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout}
		go r.internal.Serve(iln)
	}
	r.srv = &http.Server{Handler: svc.Handler(), ReadHeaderTimeout: readHeaderTimeout}
	r.done = make(chan struct{})
	go func(srv *http.Server, done chan struct{}) {
		defer close(done)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			r.t.Errorf("relay serve: %v", err)
		}
	}(r.srv, r.done)
}

// stop closes the service (every dashboard is told the relay restarts) and
// shuts the HTTP server down. Stopping a stopped relay does nothing.
func (r *relay) stop() {
	if r.svc == nil {
		return
	}
	if r.internal != nil {
		r.internal.Close()
		r.internal = nil
	}
	if err := r.svc.Close(); err != nil {
		r.t.Errorf("close relay service: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := r.srv.Shutdown(ctx); err != nil {
		r.t.Errorf("shut relay down: %v", err)
		r.srv.Close()
	}
	<-r.done
	r.svc, r.srv, r.done = nil, nil, nil
}

// URL is the relay's address as a person opens it.
func (r *relay) URL() string { return "http://" + r.addr }

// wsURL is the relay's WebSocket endpoint.
func (r *relay) wsURL() string { return "ws://" + r.addr + "/ws" }

// loginURL mints a one-time login link for the local user.
func (r *relay) loginURL(t testing.TB) string {
	t.Helper()
	u, err := r.svc.LoginURL(context.Background(), r.URL())
	if err != nil {
		t.Fatalf("login URL: %v", err)
	}
	return u
}

// mint returns a valid token for sub, signed by the relay.
func (r *relay) mint(t testing.TB, sub string, ttl time.Duration) string {
	t.Helper()
	tok, err := r.svc.Mint(sub, ttl)
	if err != nil {
		t.Fatalf("mint token: %v", err)
	}
	return tok
}

// signWithRelayKey signs any claims with the relay's own key, for tokens the
// relay would never mint (expired, for someone else's audience).
func (r *relay) signWithRelayKey(t testing.TB, claims jwt.RegisteredClaims) string {
	t.Helper()
	key, err := authn.LoadOrCreateKey(filepath.Join(r.cfg.DataDir, service.KeyFile))
	if err != nil {
		t.Fatalf("load relay key: %v", err)
	}
	return signToken(t, key, claims)
}

// signToken signs claims with an Ed25519 key, as the relay does.
func signToken(t testing.TB, key ed25519.PrivateKey, claims jwt.RegisteredClaims) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims).SignedString(key)
	if err != nil {
		t.Fatalf("sign token: %v", err)
	}
	return tok
}

// localClaims are the claims of a token the relay would mint for the local
// user, valid for an hour; tests spoil one field.
func localClaims() jwt.RegisteredClaims {
	now := time.Now()
	return jwt.RegisteredClaims{
		Issuer:    service.DefaultIssuer,
		Audience:  jwt.ClaimStrings{service.DefaultAudience},
		Subject:   service.DefaultLocalUser,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour)),
	}
}

// testLogger collects a component's log for one test and prints it when the
// test failed, so passing runs stay quiet.
func testLogger(t testing.TB, name string) *slog.Logger {
	buf := &lockedBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s log:\n%s", name, buf.String())
		}
	})
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// lockedBuffer is a bytes.Buffer safe for concurrent writers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
