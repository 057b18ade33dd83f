package agentkeys

import (
	"context"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// maxOwedUses bounds the keys whose last use waits for the store; a use of
// another key beyond it is counted as lost.
const maxOwedUses = 10000

// owedRetryDelay is how long the relay waits before writing again the
// uses a full disk refused.
const owedRetryDelay = time.Second

// owe keeps the use of key id at now, which a full disk refused, to write
// once space returns (see [Keys.WriteOwed]).
func (k *Keys) owe(id string, now time.Time) {
	k.owedMu.Lock()
	defer k.owedMu.Unlock()
	if k.owed == nil {
		k.owed = map[string]time.Time{}
	}
	if _, ok := k.owed[id]; !ok && len(k.owed) >= maxOwedUses {
		k.lostUses++
		if k.Logger != nil {
			k.Logger.Error("record agent key use", "key", id, "err", "too many uses waiting for the store", "lost", k.lostUses)
		}
		return
	}
	if now.After(k.owed[id]) {
		k.owed[id] = now
	}
	if !k.retrying {
		k.retrying = true
		go k.retryOwed()
	}
}

// retryOwed writes the owed uses every owedRetryDelay until none is left.
func (k *Keys) retryOwed() {
	t := time.NewTimer(owedRetryDelay)
	defer t.Stop()
	for range t.C {
		k.WriteOwed(context.Background())
		k.owedMu.Lock()
		if len(k.owed) == 0 {
			k.retrying = false
			k.owedMu.Unlock()
			return
		}
		k.owedMu.Unlock()
		t.Reset(owedRetryDelay)
	}
}

// WriteOwed writes now the keys' last uses a full disk refused; those the
// store still refuses stay owed.
func (k *Keys) WriteOwed(ctx context.Context) {
	k.owedMu.Lock()
	owed := k.owed
	k.owed = nil
	k.owedMu.Unlock()
	for id, at := range owed {
		err := k.Store.TouchAgentKey(ctx, id, at)
		if err == nil {
			continue
		}
		if !store.DiskFull(err) {
			if k.Logger != nil {
				k.Logger.Warn("record agent key use", "key", id, "err", err)
			}
			continue
		}
		k.owedMu.Lock()
		if k.owed == nil {
			k.owed = map[string]time.Time{}
		}
		if at.After(k.owed[id]) {
			k.owed[id] = at
		}
		k.owedMu.Unlock()
	}
}

// Owed reports how many keys' last uses wait for the store to have space
// again, and how many uses were lost because too many waited.
func (k *Keys) Owed() (owed int, lost int64) {
	k.owedMu.Lock()
	defer k.owedMu.Unlock()
	return len(k.owed), k.lostUses
}
