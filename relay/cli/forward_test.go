package cli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/store"
)

func TestAgentKeyCreateForwardSamplingFlag(t *testing.T) {
	dir := t.TempDir()
	out := run(t, agentKey, "create", "--data", dir, "--user", "ann", "--name", "fwd", "--forward-sampling")
	if !strings.Contains(out, "sampling may be handed to the agent's client") {
		t.Errorf("output does not say sampling may be handed over:\n%s", out)
	}
	fwdKey := lastWord(out)
	plainKey := lastWord(run(t, agentKey, "create", "--data", dir, "--user", "ann", "--name", "plain"))

	ctx := context.Background()
	st, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	keys := &agentkeys.Keys{Store: st}
	for key, want := range map[string]bool{fwdKey: true, plainKey: false} {
		g, err := keys.Authenticate(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if g.ForwardSampling != want {
			t.Errorf("key %s: ForwardSampling %v, want %v", g.Agent, g.ForwardSampling, want)
		}
	}
}
