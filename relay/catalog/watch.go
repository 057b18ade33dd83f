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

// Watch looks at the catalog file every interval until ctx ends. A version
// counts once two looks in a row read it (an editor may truncate the file
// before it writes it): when the content changed and the new version is
// well-formed, Watch calls changed with it; when it cannot be taken (or the
// file cannot be read), it calls failed with the reason, once per version,
// and the caller keeps the catalog it had. loaded is the content the
// caller's catalog was read from (nil when none), so that the first look
// reports only a change.
func Watch(ctx context.Context, path string, interval time.Duration, env Env, loaded []byte, changed func(Catalog), failed func(error)) {
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	seen := sha256.Sum256(loaded)
	var last look   // what the previous look read
	var taken *look // the version last handed over or refused
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		b, err := readFile(path)
		now := look{err: errText(err), sum: sha256.Sum256(b)}
		settled := now == last
		last = now
		if !settled || (taken != nil && now == *taken) {
			continue
		}
		if err == nil && bytes.Equal(now.sum[:], seen[:]) {
			taken = &now
			continue
		}
		taken = &now
		if err != nil {
			failed(err)
			continue
		}
		seen = now.sum
		c, err := Parse(b, filepath.Dir(path), env)
		if err != nil {
			failed(err)
			continue
		}
		changed(c)
	}
}

// look is what one look at the file read: an error, or content.
type look struct {
	err string
	sum [sha256.Size]byte
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
