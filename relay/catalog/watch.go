package catalog

import (
	"bytes"
	"context"
	"crypto/sha256"
	"path/filepath"
	"time"
)

// DefaultWatchInterval is how often [Watch] looks at the file by default.
const DefaultWatchInterval = 2 * time.Second

// Watch looks at the catalog file every interval until ctx ends. When its
// content changed and the new version is well-formed, it calls changed
// with it; when the new version cannot be taken (or the file cannot be
// read), it calls failed with the reason, once per version, and the caller
// keeps the catalog it had. loaded is the content the caller's catalog was
// read from (nil when none), so that the first look reports only a change.
func Watch(ctx context.Context, path string, interval time.Duration, env Env, loaded []byte, changed func(Catalog), failed func(error)) {
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	seen := sha256.Sum256(loaded)
	var lastErr string
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		b, err := readFile(path)
		if err != nil {
			if err.Error() != lastErr {
				lastErr = err.Error()
				failed(err)
			}
			continue
		}
		sum := sha256.Sum256(b)
		if bytes.Equal(sum[:], seen[:]) {
			continue
		}
		seen, lastErr = sum, ""
		c, err := Parse(b, filepath.Dir(path), env)
		if err != nil {
			lastErr = err.Error()
			failed(err)
			continue
		}
		changed(c)
	}
}
