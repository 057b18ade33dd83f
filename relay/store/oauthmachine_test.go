package store_test

import (
	"context"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

func TestMachineAccessSealedAndRemovedWithItsServer(t *testing.T) {
	ctx := context.Background()
	s, dir := openTemp(t)
	o := s.OAuth(testSealer(t, 1))
	m := store.OAuthMachine{User: "ann", Server: "s1", Grant: store.MachineClientCredentials, ClientID: "svc",
		AuthMethod: "client_secret_basic", Secret: testSecret, Scope: "mcp:read"}
	if err := o.PutMachine(ctx, m); err == nil {
		t.Fatal("PutMachine succeeded for a server that does not exist")
	}
	must(t, s.PutServer(ctx, store.Server{User: "ann", ID: "s1", Name: "One", URL: "https://mcp.example/mcp", Transport: "streamable-http"}))
	must(t, o.PutMachine(ctx, m))

	got, ok, err := o.Machine(ctx, "ann", "s1")
	if err != nil || !ok {
		t.Fatalf("Machine = %v, %v", ok, err)
	}
	if got.Grant != m.Grant || got.ClientID != m.ClientID || got.AuthMethod != m.AuthMethod || got.Secret != testSecret || got.Scope != m.Scope {
		t.Errorf("machine access = %+v", got)
	}
	if _, ok, _ := o.Machine(ctx, "bob", "s1"); ok {
		t.Error("bob sees ann's machine access")
	}
	if _, _, err := s.OAuth(testSealer(t, 2)).Machine(ctx, "ann", "s1"); err == nil {
		t.Error("the secret opened with another key")
	}
	assertNotInFiles(t, dir, testSecret)

	must(t, s.DeleteServer(ctx, "ann", "s1"))
	if _, ok, err := o.Machine(ctx, "ann", "s1"); ok || err != nil {
		t.Errorf("machine access after its server was removed: %v, %v", ok, err)
	}
}
