package conn

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestLimitedBodyFailsPastItsLimit(t *testing.T) {
	const limit = 8
	for _, tc := range []struct {
		body    string
		wantErr bool
	}{
		{strings.Repeat("a", limit-1), false},
		{strings.Repeat("a", limit), false},
		{strings.Repeat("a", limit+1), true},
		{strings.Repeat("a", 10*limit), true},
	} {
		b := &limitedBody{ReadCloser: io.NopCloser(strings.NewReader(tc.body)), left: limit}
		got, err := io.ReadAll(b)
		if tc.wantErr != errors.Is(err, errBodyTooLarge) {
			t.Errorf("%d bytes: err %v, want error %v", len(tc.body), err, tc.wantErr)
		}
		if !tc.wantErr && string(got) != tc.body {
			t.Errorf("%d bytes: read %q", len(tc.body), got)
		}
	}
}

func TestConnFailsWhenServerEndsTheNotificationStreamEarly(t *testing.T) {
	f := fullFixture(t, statelessEra)
	var mu sync.Mutex
	var cancels []context.CancelFunc
	inner := f.handler
	f.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(methodHeader) == methodListen {
			ctx, cancel := context.WithCancel(r.Context())
			mu.Lock()
			cancels = append(cancels, cancel)
			mu.Unlock()
			r = r.WithContext(ctx)
		}
		inner.ServeHTTP(w, r)
	})
	f.stop()
	f.restart()
	_, r, _ := startReady(t, f)

	mu.Lock()
	for _, cancel := range cancels {
		cancel()
	}
	mu.Unlock()
	failed := r.AwaitState(wire.StateFailed)
	if failed.Error != "connection lost: "+errStreamClosed.Error() {
		t.Errorf("error %q", failed.Error)
	}
	r.AwaitState(wire.StateReady)
}
