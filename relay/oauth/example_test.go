package oauth_test

import (
	"context"
	"fmt"
	"os"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// A headless client (the conformance client) drives the flow without a
// browser: it connects with the manager's client as the authorizer, asks
// for the authorization URL when the server needs one, follows it to the
// redirect and hands that to Callback. The state is emitted again while
// authenticating (the status changes), so it acts on entering it.
func ExampleManager_Authorize() {
	ctx := context.Background()
	as, _ := oauthfixture.NewAuthServer(oauthfixture.AuthConfig{})
	defer as.Close()
	rs, _ := oauthfixture.NewResource(oauthfixture.ResourceConfig{AuthServer: as, Scopes: []string{"mcp:read"}})
	defer rs.Close()

	dir, _ := os.MkdirTemp("", "oauth-example")
	defer os.RemoveAll(dir)
	st, _ := store.Open(ctx, dir)
	defer st.Close()
	// The OAuth records of a server belong to its registration.
	st.PutServer(ctx, store.Server{User: "me", ID: "s1", Name: "fixture", URL: rs.URL(), Transport: string(wire.TransportAuto)})
	sealer, _ := store.LoadSealer(dir)
	guard := netguard.Policy{AllowLoopback: true}
	mgr, err := oauth.NewManager(oauth.Config{
		Store:       st.OAuth(sealer),
		HTTPClient:  guard.Client(0),
		CallbackURL: "http://127.0.0.1:8080" + oauth.CallbackPath,
	})
	if err != nil {
		panic(err)
	}

	states := make(chan conn.State, 100)
	c := conn.Start(conn.Config{ID: "s1", Name: "fixture", URL: rs.URL(), HTTPClient: guard.Client(0),
		Auth: mgr.For("me", "s1", rs.URL())}, func(s conn.State) { states <- s })
	defer c.Close()

	var last wire.ServerState
	for s := range states {
		entered := s.State != last
		last = s.State
		switch {
		case s.State == wire.StateAuthenticating && entered:
			authURL, err := mgr.Authorize(ctx, "me", "s1")
			if err != nil {
				panic(err)
			}
			callback, err := oauthfixture.Approve(ctx, authURL)
			if err != nil {
				panic(err)
			}
			if err := mgr.Callback(ctx, callback); err != nil {
				panic(err)
			}
			fmt.Println("authorized with scopes", s.Auth.Scopes)
		case s.State == wire.StateReady:
			fmt.Println("ready with", len(s.Lists.Tools), "tools")
			return
		}
	}
	// Output:
	// authorized with scopes [mcp:read]
	// ready with 2 tools
}
