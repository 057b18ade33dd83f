package oauth_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestCodeExchangeGoesOnWhenThePopupGoesAway(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The browser leaves as soon as the exchange is under way.
	w.wrap = func(base http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/token") {
				cancel()
			}
			return base.RoundTrip(r)
		})
	}
	w.restart()
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	_, callback := w.authorize("ann", "s1")
	if err := w.mgr.Callback(ctx, callback); err != nil {
		t.Fatalf("Callback with the request gone: %v", err)
	}
	if ctx.Err() == nil {
		t.Fatal("the request context was never cancelled; the test proves nothing")
	}
	r.AwaitState(wire.StateReady)
	if _, ok := w.token("ann", "s1"); !ok {
		t.Error("no token stored")
	}
}

func TestRemovingTheServerDuringTheCodeExchangeStoresNoToken(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	release := make(chan struct{})
	arrived := w.holdTokenRequests("authorization_code", release)
	w.restart()
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	_, callback := w.authorize("ann", "s1")
	done := make(chan error, 1)
	go func() { done <- w.mgr.Callback(context.Background(), callback) }()
	<-arrived
	c.Close()
	if err := w.mgr.Forget(context.Background(), "ann", "s1"); err != nil {
		t.Fatal(err)
	}
	close(release)
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "removed") {
		t.Errorf("Callback after the removal: %v", err)
	}
	if w.as.Stats().Codes != 1 {
		t.Fatalf("%d codes exchanged; the exchange did not run", w.as.Stats().Codes)
	}
	if _, ok := w.token("ann", "s1"); ok {
		t.Error("a token of the removed server is stored")
	}
}

func TestRemovingTheServerDuringARefreshStoresNoToken(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	release := make(chan struct{})
	arrived := w.holdTokenRequests("refresh_token", release)
	w.restart()
	c, _ := authorized(t, w)
	c.Close()
	client := w.mgr.For("ann", "s1", w.rs.URL())
	w.clock.advance(2 * oauthfixture.DefaultTokenLifetime)

	refreshed := make(chan struct{})
	go func() {
		defer close(refreshed)
		client.Token(context.Background()) // done before or after the removal; either is fine
	}()
	<-arrived
	forgotten := make(chan error, 1)
	go func() { forgotten <- w.mgr.Forget(context.Background(), "ann", "s1") }()
	close(release)
	if err := <-forgotten; err != nil {
		t.Fatal(err)
	}
	<-refreshed
	if w.as.Stats().Refreshes != 1 {
		t.Fatalf("%d refreshes; the refresh did not run", w.as.Stats().Refreshes)
	}
	if _, ok := w.token("ann", "s1"); ok {
		t.Error("a token of the removed server is stored")
	}
	if st, _ := client.Watch(); st.Authorized {
		t.Errorf("the removed server's client still shows a token: %+v", st)
	}
}
