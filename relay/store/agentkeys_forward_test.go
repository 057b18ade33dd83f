package store_test

import (
	"context"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

func TestAgentKeyForwardSamplingIsOffUnlessAsked(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	plain, _, err := s.CreateAgentKey(ctx, store.NewAgentKey{User: "ann", Name: "plain", AllServers: true})
	if err != nil {
		t.Fatal(err)
	}
	fwd, _, err := s.CreateAgentKey(ctx, store.NewAgentKey{User: "ann", Name: "fwd", AllServers: true, ForwardSampling: true})
	if err != nil {
		t.Fatal(err)
	}
	if plain.ForwardSampling || !fwd.ForwardSampling {
		t.Fatalf("created: plain %v, fwd %v", plain.ForwardSampling, fwd.ForwardSampling)
	}
	for id, want := range map[string]bool{plain.ID: false, fwd.ID: true} {
		got, err := s.AgentKeyByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.ForwardSampling != want {
			t.Errorf("key %s: stored ForwardSampling %v, want %v", got.Name, got.ForwardSampling, want)
		}
	}
	list, err := s.AgentKeys(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ForwardSampling || !list[1].ForwardSampling {
		t.Errorf("listed keys lost the flag: %+v", list)
	}
}
