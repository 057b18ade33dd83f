package agentkeys

import (
	"context"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// KeyCacheTTL is how long an agent key read from the store is trusted
// before it is read again. The whole key is still hashed and compared
// with the stored hash on every request, and expiry is checked against
// the clock; what the cache saves is the store's round trip. A revocation
// made through this relay (the dashboard, [Keys.RevokeKey]) or seen by the
// relay's watch of its data directory ([Keys.Closed]) evicts the key at
// once; one made by another process takes effect within KeyCacheTTL (the
// watch runs every second too).
const KeyCacheTTL = time.Second

// keyTouchEvery bounds how often the relay writes a key's last use, which
// is informational: the store skips writes closer than a minute anyway,
// and the write would queue behind the single SQLite writer.
const keyTouchEvery = time.Minute

// cachedKey is an agent key as last read from the store.
type cachedKey struct {
	rec     store.AgentKey
	read    time.Time // when rec was read
	touched time.Time // when its last use was last written
}

// cachedKeyRecord returns key id, from the cache while it is fresh at now.
func (k *Keys) cachedKeyRecord(ctx context.Context, id string, now time.Time) (store.AgentKey, error) {
	k.cacheMu.Lock()
	c, ok := k.cache[id]
	k.cacheMu.Unlock()
	if ok && now.Sub(c.read) < KeyCacheTTL && !now.Before(c.read) {
		return c.rec, nil
	}
	gen := k.generation(id)
	rec, err := k.Store.AgentKeyByID(ctx, id)
	if err != nil {
		k.cacheMu.Lock()
		delete(k.cache, id)
		k.cacheMu.Unlock()
		return rec, err
	}
	k.cacheMu.Lock()
	defer k.cacheMu.Unlock()
	if k.evicted[id] != gen { // revoked while we read: do not keep what we read
		return rec, nil
	}
	if k.cache == nil {
		k.cache = map[string]cachedKey{}
	}
	c = k.cache[id]
	k.cache[id] = cachedKey{rec: rec, read: now, touched: c.touched}
	return rec, nil
}

// generation is how many times key id was evicted, to tell a read that
// raced with a revocation.
func (k *Keys) generation(id string) uint64 {
	k.cacheMu.Lock()
	defer k.cacheMu.Unlock()
	return k.evicted[id]
}

// evict forgets key id, so that its next use reads the store.
func (k *Keys) evict(id string) {
	k.cacheMu.Lock()
	defer k.cacheMu.Unlock()
	delete(k.cache, id)
	if k.evicted == nil {
		k.evicted = map[string]uint64{}
	}
	k.evicted[id]++
}

// touch writes that key id was used at now, at most every keyTouchEvery.
func (k *Keys) touch(ctx context.Context, id string, now time.Time) {
	k.cacheMu.Lock()
	c, ok := k.cache[id]
	due := !ok || now.Sub(c.touched) >= keyTouchEvery
	if ok && due {
		c.touched = now
		k.cache[id] = c
	}
	k.cacheMu.Unlock()
	if !due {
		return
	}
	err := k.Store.TouchAgentKey(ctx, id, now)
	switch {
	case err != nil && store.DiskFull(err):
		k.owe(id, now)
	case err != nil && k.Logger != nil:
		k.Logger.Warn("record agent key use", "key", id, "err", err)
	}
}
