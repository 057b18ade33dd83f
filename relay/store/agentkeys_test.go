package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

func TestAgentKeyIsStoredOnlyAsHash(t *testing.T) {
	ctx := context.Background()
	s, dir := openTemp(t)
	k, key, err := s.CreateAgentKey(ctx, store.NewAgentKey{User: "ann", Name: "laptop", AllServers: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(key, store.AgentKeyPrefix+k.ID+"_") {
		t.Fatalf("key %q does not start with the prefix and id %s", key, k.ID)
	}
	if id, ok := store.AgentKeyID(key); !ok || id != k.ID {
		t.Errorf("AgentKeyID = %q, %v; want %q", id, ok, k.ID)
	}
	got, err := s.AgentKeyByID(ctx, k.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Hash, store.HashAgentKey(key)) {
		t.Error("the stored hash is not the key's SHA-256")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	assertNotInFiles(t, dir, key[strings.LastIndex(key, "_")+1:])
}

func TestAgentKeyServersFollowTheServerList(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	for _, id := range []string{"a", "b"} {
		if err := s.PutServer(ctx, store.Server{User: "ann", ID: id, Name: "srv " + id, URL: "http://x/" + id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutServer(ctx, store.Server{User: "bob", ID: "c", Name: "bob's", URL: "http://x/c"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateAgentKey(ctx, store.NewAgentKey{User: "ann", Name: "k", Servers: []string{"a", "c"}}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a key naming another user's server: error = %v, want ErrNotFound", err)
	}
	if keys, _ := s.AgentKeys(ctx, "ann"); len(keys) != 0 {
		t.Errorf("the refused key was stored: %v", keys)
	}
	k, _, err := s.CreateAgentKey(ctx, store.NewAgentKey{User: "ann", Name: "k", Servers: []string{"a", "b"}, Tools: []string{"a__echo"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteServer(ctx, "ann", "a"); err != nil {
		t.Fatal(err)
	}
	got, err := s.AgentKeyByID(ctx, k.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.AllServers || !slices.Equal(got.Servers, []string{"b"}) || !slices.Equal(got.Tools, []string{"a__echo"}) {
		t.Errorf("after removing a: servers %v (all %v), tools %v; want [b], [a__echo]", got.Servers, got.AllServers, got.Tools)
	}
	if err := s.DeleteServer(ctx, "ann", "b"); err != nil {
		t.Fatal(err)
	}
	got, _ = s.AgentKeyByID(ctx, k.ID)
	if got.Servers == nil || len(got.Servers) != 0 || got.AllServers {
		t.Errorf("with every chosen server gone the key must reach none, not all: %v all=%v", got.Servers, got.AllServers)
	}
}

func TestAgentKeyRevokeAndExpiry(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	exp := time.Now().Add(time.Hour).Truncate(time.Millisecond).UTC()
	k, _, err := s.CreateAgentKey(ctx, store.NewAgentKey{User: "ann", Name: "k", AllServers: true, Expires: exp})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.AgentKeyByID(ctx, k.ID); !got.Expires.Equal(exp) || !got.Revoked.IsZero() {
		t.Errorf("expires %v revoked %v; want %v and not revoked", got.Expires, got.Revoked, exp)
	}
	if err := s.RevokeAgentKey(ctx, "bob", k.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob revoking ann's key: %v, want ErrNotFound", err)
	}
	before := time.Now().Add(-time.Second)
	if err := s.RevokeAgentKey(ctx, "ann", k.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeAgentKey(ctx, "ann", k.ID); !errors.Is(err, store.ErrKeyRevoked) {
		t.Errorf("second revoke: %v, want ErrKeyRevoked", err)
	}
	if got, _ := s.AgentKeyByID(ctx, k.ID); got.Revoked.IsZero() {
		t.Error("the key is not marked revoked")
	}
	ids, err := s.RevokedAgentKeys(ctx, before)
	if err != nil || !slices.Equal(ids, []string{k.ID}) {
		t.Errorf("RevokedAgentKeys = %v, %v; want [%s]", ids, err, k.ID)
	}
}

func TestAgentCallsAreBoundedAndFiltered(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	start := time.Now()
	for i := range store.MaxAgentCalls + 5 {
		outcome := "ok"
		if i%2 == 1 {
			outcome = "failed"
		}
		if _, err := s.AddAgentCall(ctx, store.AgentCall{User: "ann", Agent: "a", KeyID: "k", Server: "s1", Tool: "echo", Start: start, Outcome: outcome}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AddAgentCall(ctx, store.AgentCall{User: "bob", Agent: "b", Server: "s9", Tool: "t", Start: start, Outcome: "ok", Asked: true}); err != nil {
		t.Fatal(err)
	}
	all, err := s.AgentCalls(ctx, "ann", store.CallFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != store.MaxAgentCalls {
		t.Errorf("ann has %d calls, want the latest %d", len(all), store.MaxAgentCalls)
	}
	if all[0].ID < all[len(all)-1].ID {
		t.Error("calls are not newest first")
	}
	failed, _ := s.AgentCalls(ctx, "ann", store.CallFilter{Outcome: "failed", Limit: 10})
	if len(failed) != 10 || failed[0].Outcome != "failed" {
		t.Errorf("filter by outcome: %d calls, first %+v", len(failed), failed[0])
	}
	bob, _ := s.AgentCalls(ctx, "bob", store.CallFilter{Agent: "b", Server: "s9"})
	if len(bob) != 1 || !bob[0].Asked {
		t.Errorf("bob's calls = %+v, want one that asked a person", bob)
	}
	if none, _ := s.AgentCalls(ctx, "ann", store.CallFilter{Server: "s9"}); len(none) != 0 {
		t.Errorf("ann's calls to bob's server: %v", none)
	}
}

func TestAgentCallsInOneBatchKeepTheirOrderAndTheBound(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	var batch []store.AgentCall
	for i := range store.MaxAgentCalls + 3 {
		batch = append(batch, store.AgentCall{User: "ann", Agent: "a", Server: "s1", Tool: fmt.Sprint(i), Start: time.Now(), Outcome: "ok"})
	}
	batch = append(batch, store.AgentCall{User: "bob", Agent: "b", Server: "s9", Tool: "t", Start: time.Now(), Outcome: "ok"})
	out, err := s.AddAgentCalls(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(batch) {
		t.Fatalf("%d calls back, want %d", len(out), len(batch))
	}
	for i := 1; i < len(out); i++ {
		if out[i].ID <= out[i-1].ID || out[i].Tool != batch[i].Tool {
			t.Fatalf("call %d = %+v after %+v: not in order", i, out[i], out[i-1])
		}
	}
	ann, _ := s.AgentCalls(ctx, "ann", store.CallFilter{})
	if len(ann) != store.MaxAgentCalls || ann[0].Tool != fmt.Sprint(store.MaxAgentCalls+2) {
		t.Errorf("ann keeps %d calls, newest %q; want the latest %d", len(ann), ann[0].Tool, store.MaxAgentCalls)
	}
	if bob, _ := s.AgentCalls(ctx, "bob", store.CallFilter{}); len(bob) != 1 {
		t.Errorf("bob has %d calls, want 1", len(bob))
	}
}

// A key's tool mode and a code-mode program's log entries are kept.
func TestCodeModeIsKept(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	plain, _, err := s.CreateAgentKey(ctx, store.NewAgentKey{User: "ann", Name: "plain", AllServers: true})
	if err != nil {
		t.Fatal(err)
	}
	code, _, err := s.CreateAgentKey(ctx, store.NewAgentKey{User: "ann", Name: "coder", AllServers: true, ToolMode: "code"})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{plain.ID: "tools", code.ID: "code"} {
		if got, err := s.AgentKeyByID(ctx, id); err != nil || got.ToolMode != want {
			t.Errorf("key %s: tool mode %q (%v), want %q", id, got.ToolMode, err, want)
		}
	}
	start := time.Now().UTC().Truncate(time.Millisecond)
	if _, err := s.AddAgentCalls(ctx, []store.AgentCall{
		{User: "ann", Agent: "coder", Tool: "execute", Start: start, Outcome: "ok", Program: "return await files.list()"},
		{User: "ann", Agent: "coder", Server: "s1", Tool: "list", Start: start, Outcome: "ok", ByCode: true},
	}); err != nil {
		t.Fatal(err)
	}
	calls, err := s.AgentCalls(ctx, "ann", store.CallFilter{})
	if err != nil || len(calls) != 2 {
		t.Fatalf("%d calls, %v", len(calls), err)
	}
	if calls[0].ByCode != true || calls[0].Program != "" || calls[1].Program != "return await files.list()" || calls[1].ByCode {
		t.Errorf("calls read back %+v", calls)
	}
}
