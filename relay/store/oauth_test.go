package store_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// Secrets the tests look for in the database file.
const (
	testAccess   = "access-AAAA-1111"
	testRefresh  = "refresh-RRRR-2222"
	testSecret   = "client-secret-SSSS-3333"
	testVerifier = "verifier-VVVV-4444-0123456789012345678901234567890123"
)

func openOAuth(t *testing.T) (*store.OAuthStore, store.TestDB) {
	t.Helper()
	s, dir := openTemp(t)
	registerServers(t, s)
	return s.OAuth(testSealer(t, 1)), dir
}

// registerServers registers the servers the OAuth records belong to.
func registerServers(t *testing.T, s *store.Store) {
	t.Helper()
	for _, u := range []string{"ann", "bob"} {
		for _, id := range []string{"s1", "s2"} {
			must(t, s.PutServer(context.Background(), store.Server{User: u, ID: id, Name: id, URL: "https://" + id + ".example", Transport: "auto"}))
		}
	}
}

func TestOAuthClientsPerSourceAndSecretSealed(t *testing.T) {
	ctx := context.Background()
	o, dir := openOAuth(t)
	dyn := store.OAuthClient{User: "ann", Server: "s1", Source: store.ClientDynamic, Issuer: "https://as.example",
		RedirectURI: "https://relay.example/oauth/callback", ClientID: "dyn-1", ClientSecret: testSecret, AuthMethod: "client_secret_basic"}
	must(t, o.PutClient(ctx, dyn))
	must(t, o.PutClient(ctx, store.OAuthClient{User: "ann", Server: "s1", Source: store.ClientManual, ClientID: "manual-1", AuthMethod: "none"}))

	got, ok, err := o.Client(ctx, "ann", "s1", store.ClientDynamic)
	if err != nil || !ok {
		t.Fatalf("Client = %v, %v", ok, err)
	}
	if got.ClientID != "dyn-1" || got.ClientSecret != testSecret || got.Issuer != dyn.Issuer || got.RedirectURI != dyn.RedirectURI || got.AuthMethod != dyn.AuthMethod {
		t.Errorf("dynamic client = %+v", got)
	}
	manual, ok, err := o.Client(ctx, "ann", "s1", store.ClientManual)
	if err != nil || !ok || manual.ClientID != "manual-1" || manual.ClientSecret != "" {
		t.Errorf("manual client = %+v, %v, %v", manual, ok, err)
	}
	if _, ok, _ := o.Client(ctx, "bob", "s1", store.ClientDynamic); ok {
		t.Error("bob sees ann's registration")
	}
	assertNotInFiles(t, dir, testSecret)

	must(t, o.DeleteClient(ctx, "ann", "s1", store.ClientManual))
	if _, ok, _ := o.Client(ctx, "ann", "s1", store.ClientManual); ok {
		t.Error("manual client still there after DeleteClient")
	}
}

func TestOAuthTokenRoundTripsSealed(t *testing.T) {
	ctx := context.Background()
	o, dir := openOAuth(t)
	expiry := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	tok := store.OAuthToken{User: "ann", Server: "s1", Issuer: "https://as.example", TokenEndpoint: "https://as.example/token",
		Resource: "https://mcp.example/mcp", ClientID: "dyn-1", ClientSource: store.ClientDynamic, AuthMethod: "none",
		Scopes: []string{"read", "write"}, AccessToken: testAccess, RefreshToken: testRefresh, TokenType: "Bearer", Expiry: expiry}
	must(t, o.PutToken(ctx, tok))
	got, ok, err := o.Token(ctx, "ann", "s1")
	if err != nil || !ok {
		t.Fatalf("Token = %v, %v", ok, err)
	}
	if got.AccessToken != testAccess || got.RefreshToken != testRefresh || got.TokenType != "Bearer" || !got.Expiry.Equal(expiry) ||
		!slices.Equal(got.Scopes, tok.Scopes) || got.TokenEndpoint != tok.TokenEndpoint || got.Resource != tok.Resource || got.ClientSource != store.ClientDynamic {
		t.Errorf("token = %+v", got)
	}
	assertNotInFiles(t, dir, testAccess, testRefresh)

	must(t, o.DeleteToken(ctx, "ann", "s1"))
	if _, ok, _ := o.Token(ctx, "ann", "s1"); ok {
		t.Error("token still there after DeleteToken")
	}
}

func TestOAuthTokenFromAnotherKeyDoesNotOpen(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	registerServers(t, s)
	must(t, s.OAuth(testSealer(t, 1)).PutToken(ctx, store.OAuthToken{User: "ann", Server: "s1", AccessToken: testAccess}))
	if _, _, err := s.OAuth(testSealer(t, 2)).Token(ctx, "ann", "s1"); !errors.Is(err, store.ErrUnseal) {
		t.Errorf("Token with another key: %v, want ErrUnseal", err)
	}
}

func testState(state string, expires time.Time) store.OAuthState {
	return store.OAuthState{State: state, User: "ann", Server: "s1", RedirectURI: "https://relay.example/oauth/callback",
		Issuer: "https://as.example", TokenEndpoint: "https://as.example/token", Resource: "https://mcp.example/mcp",
		ClientID: "dyn-1", ClientSource: store.ClientDynamic, AuthMethod: "none", Scopes: []string{"read"},
		Verifier: testVerifier, ExpiresAt: expires}
}

func accept(store.OAuthState) error { return nil }

func TestOAuthStateIsSingleUse(t *testing.T) {
	ctx := context.Background()
	o, dir := openOAuth(t)
	now := time.Now()
	must(t, o.PutState(ctx, testState("state-1", now.Add(10*time.Minute))))
	assertNotInFiles(t, dir, testVerifier, "state-1")

	st, err := o.ConsumeState(ctx, "state-1", now, accept)
	if err != nil {
		t.Fatal(err)
	}
	if st.User != "ann" || st.Server != "s1" || st.Verifier != testVerifier || !slices.Equal(st.Scopes, []string{"read"}) || st.ClientID != "dyn-1" {
		t.Errorf("state = %+v", st)
	}
	if _, err := o.ConsumeState(ctx, "state-1", now, accept); !errors.Is(err, store.ErrStateUsed) {
		t.Errorf("second ConsumeState: %v, want ErrStateUsed", err)
	}
	if _, err := o.ConsumeState(ctx, "state-2", now, accept); !errors.Is(err, store.ErrStateUnknown) {
		t.Errorf("unknown state: %v, want ErrStateUnknown", err)
	}
}

func TestOAuthStateExpiresAtItsDeadline(t *testing.T) {
	ctx := context.Background()
	o, _ := openOAuth(t)
	expires := time.Now().Add(10 * time.Minute).Truncate(time.Millisecond)
	must(t, o.PutState(ctx, testState("s", expires)))
	if _, err := o.ConsumeState(ctx, "s", expires, accept); !errors.Is(err, store.ErrStateExpired) {
		t.Errorf("at its deadline: %v, want ErrStateExpired", err)
	}
	if _, err := o.ConsumeState(ctx, "s", expires.Add(-time.Millisecond), accept); err != nil {
		t.Errorf("just before its deadline: %v", err)
	}
}

func TestOAuthStateFailingTheCheckIsNotConsumed(t *testing.T) {
	ctx := context.Background()
	o, _ := openOAuth(t)
	now := time.Now()
	must(t, o.PutState(ctx, testState("s", now.Add(time.Minute))))
	wrongPath := errors.New("wrong callback path")
	if _, err := o.ConsumeState(ctx, "s", now, func(store.OAuthState) error { return wrongPath }); !errors.Is(err, wrongPath) {
		t.Fatalf("ConsumeState with a failing check: %v", err)
	}
	if _, err := o.ConsumeState(ctx, "s", now, accept); err != nil {
		t.Errorf("the state was consumed by a refused callback: %v", err)
	}
}

func TestOAuthStateConcurrentConsumeHasOneWinner(t *testing.T) {
	ctx := context.Background()
	o, _ := openOAuth(t)
	now := time.Now()
	must(t, o.PutState(ctx, testState("s", now.Add(time.Minute))))
	const callers = 8
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := o.ConsumeState(ctx, "s", now, accept)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	wins := 0
	for err := range errs {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, store.ErrStateUsed):
			t.Errorf("loser error %v, want ErrStateUsed", err)
		}
	}
	if wins != 1 {
		t.Errorf("%d callers consumed the state, want 1", wins)
	}
}

func TestOAuthForgetDeletesEverythingOfOneServer(t *testing.T) {
	ctx := context.Background()
	o, _ := openOAuth(t)
	now := time.Now()
	for _, server := range []string{"s1", "s2"} {
		must(t, o.PutClient(ctx, store.OAuthClient{User: "ann", Server: server, Source: store.ClientDynamic, ClientID: "c"}))
		must(t, o.PutClient(ctx, store.OAuthClient{User: "ann", Server: server, Source: store.ClientManual, ClientID: "m"}))
		must(t, o.PutToken(ctx, store.OAuthToken{User: "ann", Server: server, AccessToken: testAccess}))
		st := testState("state-"+server, now.Add(time.Minute))
		st.Server = server
		must(t, o.PutState(ctx, st))
	}
	must(t, o.Forget(ctx, "ann", "s1"))
	for _, source := range []string{store.ClientDynamic, store.ClientManual} {
		if _, ok, _ := o.Client(ctx, "ann", "s1", source); ok {
			t.Errorf("%s client of s1 survived Forget", source)
		}
		if _, ok, _ := o.Client(ctx, "ann", "s2", source); !ok {
			t.Errorf("%s client of s2 was deleted", source)
		}
	}
	if _, ok, _ := o.Token(ctx, "ann", "s1"); ok {
		t.Error("token of s1 survived Forget")
	}
	if _, ok, _ := o.Token(ctx, "ann", "s2"); !ok {
		t.Error("token of s2 was deleted")
	}
	if _, err := o.ConsumeState(ctx, "state-s1", now, accept); !errors.Is(err, store.ErrStateUnknown) {
		t.Errorf("state of s1 after Forget: %v, want ErrStateUnknown", err)
	}
	if _, err := o.ConsumeState(ctx, "state-s2", now, accept); err != nil {
		t.Errorf("state of s2 after Forget of s1: %v", err)
	}
}

// assertNotInFiles fails if any secret is in what db holds at rest: the
// database files on SQLite, every value on PostgreSQL.
func assertNotInFiles(t *testing.T, db store.TestDB, secrets ...string) {
	t.Helper()
	stored := store.StoredBytes(t, db)
	for _, s := range secrets {
		if bytes.Contains(stored, []byte(s)) {
			t.Errorf("the store holds %q in the clear", s)
		}
	}
}
