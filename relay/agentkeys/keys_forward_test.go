package agentkeys_test

import (
	"context"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestKeyForwardSamplingReachesTheGrantAndTheList(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	keys := &agentkeys.Keys{Store: st}
	plain, err := keys.CreateKey(ctx, "ann", wire.CreateAgentKeyArgs{Name: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	fwd, err := keys.CreateKey(ctx, "ann", wire.CreateAgentKeyArgs{Name: "fwd", ForwardSampling: true})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Key.ForwardSampling || !fwd.Key.ForwardSampling {
		t.Fatalf("created keys: plain %v, fwd %v", plain.Key.ForwardSampling, fwd.Key.ForwardSampling)
	}
	for secret, want := range map[string]bool{plain.Secret: false, fwd.Secret: true} {
		g, err := keys.Authenticate(ctx, secret)
		if err != nil {
			t.Fatal(err)
		}
		if g.ForwardSampling != want {
			t.Errorf("grant of %s: ForwardSampling %v, want %v", g.Agent, g.ForwardSampling, want)
		}
	}
	list, err := keys.ListKeys(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ForwardSampling || !list[1].ForwardSampling {
		t.Errorf("listed keys: %+v", list)
	}
}
