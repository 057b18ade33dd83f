package store_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func policy(server, tool string, p wire.ToolPolicy) wire.ToolPolicyEntry {
	return wire.ToolPolicyEntry{ToolRef: wire.ToolRef{Server: server, Tool: tool}, Policy: p}
}

func TestToolPoliciesPerUserServerAndTool(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	if err := s.SetToolPolicy(ctx, "ann", policy("s1", "read", wire.PolicyRun)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a policy for an unknown server: %v, want ErrNotFound", err)
	}
	registerServers(t, s)
	must(t, s.SetToolPolicy(ctx, "ann", policy("s2", "write", wire.PolicyAsk)))
	must(t, s.SetToolPolicy(ctx, "ann", policy("s1", "write", wire.PolicyNever)))
	must(t, s.SetToolPolicy(ctx, "ann", policy("s1", "read", wire.PolicyAsk)))
	must(t, s.SetToolPolicy(ctx, "ann", policy("s1", "read", wire.PolicyRun)))
	must(t, s.SetToolPolicy(ctx, "bob", policy("s1", "read", wire.PolicyNever)))

	got, err := s.ToolPolicies(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	want := []wire.ToolPolicyEntry{policy("s1", "read", wire.PolicyRun), policy("s1", "write", wire.PolicyNever), policy("s2", "write", wire.PolicyAsk)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ann's policies = %v\nwant %v", got, want)
	}
	if got, _ := s.ToolPolicies(ctx, "bob"); !reflect.DeepEqual(got, []wire.ToolPolicyEntry{policy("s1", "read", wire.PolicyNever)}) {
		t.Errorf("bob's policies = %v", got)
	}
	if got, err := s.ToolPolicies(ctx, "cid"); err != nil || got == nil || len(got) != 0 {
		t.Errorf("policies of a user without any = %v, %v; want empty", got, err)
	}

	if err := s.SetToolPolicy(ctx, "ann", policy("s1", "read", "sometimes")); err == nil {
		t.Error("an unknown policy was stored")
	}
	if err := s.SetToolPolicy(ctx, "ann", policy("s3", "read", "")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("clearing a policy of an unknown server: %v, want ErrNotFound", err)
	}
	must(t, s.SetToolPolicy(ctx, "ann", policy("s1", "write", "")))
	must(t, s.SetToolPolicy(ctx, "ann", policy("s1", "never-set", "")))
	want = []wire.ToolPolicyEntry{policy("s1", "read", wire.PolicyRun), policy("s2", "write", wire.PolicyAsk)}
	if got, _ := s.ToolPolicies(ctx, "ann"); !reflect.DeepEqual(got, want) {
		t.Errorf("after clearing s1/write = %v\nwant %v", got, want)
	}

	// Removing a server removes its policies, and only the user's.
	must(t, s.DeleteServer(ctx, "ann", "s1"))
	want = []wire.ToolPolicyEntry{policy("s2", "write", wire.PolicyAsk)}
	if got, _ := s.ToolPolicies(ctx, "ann"); !reflect.DeepEqual(got, want) {
		t.Errorf("after removing s1 = %v\nwant %v", got, want)
	}
	if got, _ := s.ToolPolicies(ctx, "bob"); len(got) != 1 {
		t.Errorf("bob's policies after ann removed her s1 = %v", got)
	}
	if err := s.SetToolPolicy(ctx, "ann", policy("s1", "read", wire.PolicyRun)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a policy for the removed server: %v, want ErrNotFound", err)
	}
}
