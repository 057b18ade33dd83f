package gateway

import (
	"sync"

	"golang.org/x/time/rate"

	"github.com/switchboard-mcp/switchboard/relay/metrics"
)

// Limits is the request budget of agent keys: one token bucket per key id,
// shared by every route an agent uses ([Path], [ServerPath] and the tool
// API), so that a key (or an OAuth grant, whose tokens share the key id
// "grant:<id>") cannot double its rate by spreading its requests over them.
type Limits struct {
	rate  rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter // by key id
}

// NewLimits returns the budget of r requests a second per key, in bursts of
// at most burst; zero values take [DefaultRate] and [DefaultBurst].
func NewLimits(r rate.Limit, burst int) *Limits {
	if r <= 0 {
		r = DefaultRate
	}
	if burst <= 0 {
		burst = DefaultBurst
	}
	return &Limits{rate: r, burst: burst, buckets: map[string]*rate.Limiter{}}
}

// Allow spends one request of key's budget, or reports that none is left.
func (l *Limits) Allow(key string) bool {
	l.mu.Lock()
	b, ok := l.buckets[key]
	if !ok {
		b = rate.NewLimiter(l.rate, l.burst)
		l.buckets[key] = b
	}
	l.mu.Unlock()
	if !b.Allow() {
		metrics.Refused(metrics.LimitRequests)
		return false
	}
	return true
}

// Forget drops key's bucket (the key was revoked).
func (l *Limits) Forget(key string) {
	l.mu.Lock()
	delete(l.buckets, key)
	l.mu.Unlock()
}
