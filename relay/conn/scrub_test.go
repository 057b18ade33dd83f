package conn

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestSecretsAreMaskedInLogsAndErrors(t *testing.T) {
	var logs syncBuffer
	cfg := testConfig("http://127.0.0.1:9/mcp?api_key=sk%2Fq-secret&page=2")
	cfg.HTTPClient = nil // fails at once, without a request
	cfg.Headers = map[string]string{"X-Api-Key": "hdr-secret"}
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, r := start(t, cfg)
	r.AwaitState(wire.StateFailed)

	c.log.Warn("request failed", "error", errors.New(`Post "http://127.0.0.1:9/mcp?api_key=sk%2Fq-secret&page=2": key hdr-secret refused`),
		slog.Group("req", "url", "http://127.0.0.1:9/mcp?api_key=sk/q-secret"))
	c.log.With("header", "hdr-secret").Info("with attrs")
	out := logs.String()
	for _, secret := range []string{"sk%2Fq-secret", "sk/q-secret", "hdr-secret"} {
		if strings.Contains(out, secret) {
			t.Errorf("the log carries %q:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "api_key="+"•••") || !strings.Contains(out, "page=2") {
		t.Errorf("the log lost what is not secret:\n%s", out)
	}
	if got := c.scrub("failed: hdr-secret"); got != "failed: •••" {
		t.Errorf("scrub = %q", got)
	}
}
