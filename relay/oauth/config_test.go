package oauth_test

import (
	"context"
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/store"
)

// configBase is a valid configuration over a store of its own.
func configBase(t *testing.T) oauth.Config {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sealer, err := store.NewSealer(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	return oauth.Config{Store: st.OAuth(sealer), HTTPClient: netguard.Policy{}.Client(0), CallbackURL: testCallback}
}

func TestNewManagerChecksTheConfiguration(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tweak func(*oauth.Config)
		ok    bool
	}{
		{"valid", func(*oauth.Config) {}, true},
		{"success and error paths", func(c *oauth.Config) { c.SuccessURL, c.ErrorURL = "/done", "/failed?from=relay" }, true},
		{"success and error URLs", func(c *oauth.Config) { c.SuccessURL, c.ErrorURL = "https://app.example/done", "http://127.0.0.1:9/x" }, true},
		{"javascript success URL", func(c *oauth.Config) { c.SuccessURL = "javascript:alert(1)" }, false},
		{"data error URL", func(c *oauth.Config) { c.ErrorURL = "data:text/html,hi" }, false},
		{"protocol-relative success URL", func(c *oauth.Config) { c.SuccessURL = "//evil.example/x" }, false},
		{"backslash error path", func(c *oauth.Config) { c.ErrorURL = "/\\evil.example" }, false},
		{"relative success path", func(c *oauth.Config) { c.SuccessURL = "done" }, false},
		{"success URL without a host", func(c *oauth.Config) { c.SuccessURL = "https:///done" }, false},
		{"error URL with a control character", func(c *oauth.Config) { c.ErrorURL = "/fail\ned" }, false},
		{"client metadata URL without a callback", func(c *oauth.Config) {
			c.CallbackURL, c.ClientMetadataURL = "", "https://relay.example/client.json"
		}, false},
		{"client metadata URL with a callback", func(c *oauth.Config) { c.ClientMetadataURL = "https://relay.example/client.json" }, true},
		{"callback with a query", func(c *oauth.Config) { c.CallbackURL = testCallback + "?x=1" }, false},
		{"no store", func(c *oauth.Config) { c.Store = nil }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := configBase(t)
			tc.tweak(&cfg)
			_, err := oauth.NewManager(cfg)
			if (err == nil) != tc.ok {
				t.Errorf("NewManager: %v, want ok %v", err, tc.ok)
			}
		})
	}
}

func TestNewManagerLeavesTheCallersClientsAlone(t *testing.T) {
	cfg := configBase(t)
	cfg.Clients = []oauth.Credentials{{Server: "HTTP://Example.COM:80/mcp", ClientID: "c"}}
	given := slices.Clone(cfg.Clients)
	if _, err := oauth.NewManager(cfg); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Clients, given) {
		t.Errorf("NewManager changed the caller's clients to %+v", cfg.Clients)
	}
}
