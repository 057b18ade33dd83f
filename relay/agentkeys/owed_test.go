package agentkeys_test

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/relay/store/disktest"
)

// A key used while the disk is full still authenticates; its last use is
// kept and written once space returns.
func TestAKeysUseOnAFullDiskIsWrittenWhenSpaceReturns(t *testing.T) {
	disk := disktest.Mount(t, "2m")
	ctx := context.Background()
	st := disk.OpenStore()
	k, secret := mustKey(t, st, store.NewAgentKey{User: "ann", Name: "bot", AllServers: true})
	now := time.Now().Truncate(time.Millisecond)
	keys := &agentkeys.Keys{Store: st, Now: func() time.Time { return now }}
	disk.FillUnder(st)
	if _, err := keys.Authenticate(ctx, secret); err != nil {
		t.Fatalf("authenticate on a full disk: %v", err)
	}
	if owed, lost := keys.Owed(); owed != 1 || lost != 0 {
		t.Fatalf("on a full disk %d uses owed and %d lost, want 1 and 0", owed, lost)
	}
	if got, _ := st.AgentKeyByID(ctx, k.ID); !got.LastUsed.IsZero() {
		t.Fatalf("the use was written on a full disk at %v", got.LastUsed)
	}
	disk.Free()
	keys.WriteOwed(ctx)
	if owed, _ := keys.Owed(); owed != 0 {
		t.Fatalf("%d uses still owed once space returned", owed)
	}
	if got, _ := st.AgentKeyByID(ctx, k.ID); !got.LastUsed.Equal(now) {
		t.Fatalf("last use %v, want %v", got.LastUsed, now)
	}
}
