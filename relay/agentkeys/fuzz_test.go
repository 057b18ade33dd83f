package agentkeys_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
)

// FuzzAuthenticate shows any bearer to the agent endpoint's authenticator,
// which knows one key of ann's: only that key's secret, exactly, is
// accepted, for ann; anything else is ErrUnauthorized.
func FuzzAuthenticate(f *testing.F) {
	f.Add("%s")
	f.Add("%s ")
	f.Add(" %s")
	f.Add("%sx")
	f.Add("x%s")
	f.Add("sbk_")
	f.Add("sbk_%s")
	f.Add("sbat_x")
	f.Add("a.b.c")
	f.Add("")
	f.Fuzz(func(t *testing.T, pattern string) {
		keys, _, _, k, secret := cachedKey(t)
		bearer := strings.ReplaceAll(pattern, "%s", secret)
		g, err := keys.Authenticate(context.Background(), bearer)
		if err != nil {
			if !errors.Is(err, agentkeys.ErrUnauthorized) {
				t.Fatalf("Authenticate(%q) = %v, not ErrUnauthorized", bearer, err)
			}
			return
		}
		if bearer != secret || g.User != "ann" || g.KeyID != k.ID {
			t.Fatalf("Authenticate(%q) accepted for %+v; the key is %q", bearer, g, secret)
		}
	})
}
