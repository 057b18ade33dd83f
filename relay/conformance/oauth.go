package conformance

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"

	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// OAuth facts of a run.
const (
	// user owns the run's one server.
	user = "conformance"
	// callbackURL is the redirect URI the relay registers. Nothing listens
	// there: the runner reads the redirect instead of following it.
	callbackURL = "http://127.0.0.1" + oauth.CallbackPath
	// clientMetadataURL is the client ID metadata document URL the suite's
	// auth/basic-cimd scenario expects a client to use (nothing is served
	// there; the mock authorization server does not fetch it).
	clientMetadataURL = "https://conformance-test.local/client-metadata.json"
	// sealKeyBytes is the size of the throwaway key sealing the run's
	// secrets at rest.
	sealKeyBytes = 32
)

// headless is the relay's OAuth client for one run, over a throwaway store,
// with a person's part played by a program: it opens the authorization URL
// without following the redirect and hands the redirect to the callback.
type headless struct {
	manager *oauth.Manager
	store   *store.Store
	dir     string
	// noFollow fetches the authorization URL and stops at its redirect.
	noFollow *http.Client
	log      *slog.Logger
}

// newHeadless opens a store in a new directory under cfg.TempDir and
// starts an OAuth manager on it for the server at serverURL: with the
// context's pre-registered client for that server, or, for a machine access
// scenario (sc.machine), with the server registered and configured for
// machine access with the context's credentials.
func newHeadless(ctx context.Context, cfg Config, sc scenario, serverURL string) (_ *headless, err error) {
	dir, err := os.MkdirTemp(cfg.TempDir, "switchboard-conformance-")
	if err != nil {
		return nil, fmt.Errorf("oauth store directory: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	st, err := store.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			st.Close()
		}
	}()
	// The OAuth records belong to a registered server.
	if err := st.PutServer(ctx, store.Server{User: user, ID: serverID, Name: serverID, URL: serverURL, Transport: string(wire.TransportAuto)}); err != nil {
		return nil, err
	}
	key := make([]byte, sealKeyBytes)
	rand.Read(key)
	sealer, err := store.NewSealer(key)
	if err != nil {
		return nil, err
	}
	ost := st.OAuth(sealer)
	ocfg := oauth.Config{
		Store:             ost,
		HTTPClient:        cfg.HTTPClient,
		CallbackURL:       callbackURL,
		ClientMetadataURL: clientMetadataURL,
		Logger:            cfg.Logger,
	}
	switch {
	case sc.machine != "":
		if err := configureMachine(ctx, st, ost, cfg, sc.machine, serverURL); err != nil {
			return nil, err
		}
		if sc.machine == store.MachineCrossApp {
			ocfg.CrossApp = crossApp(cfg.Context)
		}
	case cfg.Context.ClientID != "":
		ocfg.Clients = []oauth.Credentials{{Server: serverURL, ClientID: cfg.Context.ClientID, ClientSecret: cfg.Context.ClientSecret}}
	}
	m, err := oauth.NewManager(ocfg)
	if err != nil {
		return nil, err
	}
	noFollow := *cfg.HTTPClient
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &headless{manager: m, store: st, dir: dir, noFollow: &noFollow, log: cfg.Logger}, nil
}

// close closes the store and removes its directory.
func (h *headless) close() {
	if err := h.store.Close(); err != nil {
		h.log.Warn("close the oauth store", "error", err)
	}
	if err := os.RemoveAll(h.dir); err != nil {
		h.log.Warn("remove the oauth store", "error", err)
	}
}

// approve authorizes the server as a person would: it starts an
// authorization, opens its URL, and delivers the authorization server's
// redirect to the relay's callback.
func (h *headless) approve(ctx context.Context) error {
	authURL, err := h.manager.Authorize(ctx, user, serverID)
	if err != nil {
		return fmt.Errorf("start authorization: %w", err)
	}
	redirect, err := follow(ctx, h.noFollow, authURL)
	if err != nil {
		return err
	}
	if err := h.manager.Callback(ctx, redirect); err != nil {
		return fmt.Errorf("authorization callback: %w", err)
	}
	h.log.Info("authorized")
	return nil
}

// follow opens authURL with a client that does not follow redirects and
// returns where its redirect points, resolved against authURL.
func follow(ctx context.Context, hc *http.Client, authURL string) (*url.URL, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, fmt.Errorf("authorization request: %w", err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("authorization request: %w", err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode < http.StatusMultipleChoices || resp.StatusCode >= http.StatusBadRequest || loc == "" {
		return nil, fmt.Errorf("authorization request: the authorization server answered %s, not a redirect", resp.Status)
	}
	redirect, err := req.URL.Parse(loc)
	if err != nil {
		return nil, fmt.Errorf("authorization redirect: %w", err)
	}
	return redirect, nil
}

// approveWhenAsked approves every authorization the connection waits for,
// until ctx ends or an approval fails, which it returns. A state showing
// authorization as required after an approval is the same request until a
// state shows it granted.
func (h *headless) approveWhenAsked(ctx context.Context, w *watcher) error {
	seen, approved := 0, false
	for {
		s, seq, err := w.next(ctx, seen)
		if err != nil {
			return err
		}
		seen = seq
		required := s.Auth != nil && s.Auth.Required
		switch {
		case !required:
			approved = false
		case s.State == wire.StateAuthenticating && !approved:
			if err := h.approve(ctx); err != nil {
				return err
			}
			approved = true
		}
	}
}
