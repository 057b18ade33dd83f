package store_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

const testCode = "Zm9vYmFyYmF6cXV1eC1hIGxvZ2luIGNvZGUgZm9yIHRlc3Rz"

func TestLoginCodeIsSingleUse(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	now := time.Now()
	must(t, s.PutLoginCode(ctx, testCode, "ann", now.Add(time.Minute)))

	user, err := s.ConsumeLoginCode(ctx, testCode, now)
	if err != nil || user != "ann" {
		t.Fatalf("first consume = %q, %v; want ann, nil", user, err)
	}
	user, err = s.ConsumeLoginCode(ctx, testCode, now)
	if !errors.Is(err, store.ErrLoginCodeUsed) || user != "" {
		t.Errorf("second consume = %q, %v; want \"\", ErrLoginCodeUsed", user, err)
	}
}

func TestConcurrentConsumeHasExactlyOneWinner(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	now := time.Now()
	must(t, s.PutLoginCode(ctx, testCode, "ann", now.Add(time.Minute)))

	const callers = 16
	start := make(chan struct{})
	errs := make(chan error, callers)
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			<-start
			_, err := s.ConsumeLoginCode(ctx, testCode, now)
			errs <- err
		})
	}
	close(start)
	wg.Wait()
	close(errs)

	wins, used := 0, 0
	for err := range errs {
		switch {
		case err == nil:
			wins++
		case errors.Is(err, store.ErrLoginCodeUsed):
			used++
		default:
			t.Errorf("consume error = %v, want nil or ErrLoginCodeUsed", err)
		}
	}
	if wins != 1 || used != callers-1 {
		t.Errorf("%d wins and %d used; want 1 and %d", wins, used, callers-1)
	}
}

func TestLoginCodeExpiresAtItsDeadline(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	expires := time.Now().Add(time.Minute)
	must(t, s.PutLoginCode(ctx, testCode, "ann", expires))

	for _, now := range []time.Time{expires, expires.Add(time.Hour)} {
		if _, err := s.ConsumeLoginCode(ctx, testCode, now); !errors.Is(err, store.ErrLoginCodeExpired) {
			t.Errorf("consume at %v: error = %v, want ErrLoginCodeExpired", now.Sub(expires), err)
		}
	}
	// An expired attempt does not burn the code for an earlier clock.
	if user, err := s.ConsumeLoginCode(ctx, testCode, expires.Add(-time.Second)); err != nil || user != "ann" {
		t.Errorf("consume before expiry = %q, %v; want ann, nil", user, err)
	}
}

func TestUnknownLoginCode(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	must(t, s.PutLoginCode(ctx, testCode, "ann", time.Now().Add(time.Minute)))
	if _, err := s.ConsumeLoginCode(ctx, testCode+"x", time.Now()); !errors.Is(err, store.ErrLoginCodeUnknown) {
		t.Errorf("error = %v, want ErrLoginCodeUnknown", err)
	}
}

func TestLoginCodeErrorsAreDistinct(t *testing.T) {
	tests := []struct {
		err           *store.LoginCodeError
		used, expired bool
	}{
		{store.ErrLoginCodeUnknown, false, false},
		{store.ErrLoginCodeUsed, true, false},
		{store.ErrLoginCodeExpired, false, true},
	}
	for _, tt := range tests {
		if tt.err.CodeUsed() != tt.used || tt.err.CodeExpired() != tt.expired {
			t.Errorf("%v: CodeUsed=%v CodeExpired=%v, want %v %v", tt.err, tt.err.CodeUsed(), tt.err.CodeExpired(), tt.used, tt.expired)
		}
		for _, other := range tests {
			if other.err != tt.err && errors.Is(tt.err, other.err) {
				t.Errorf("errors.Is(%v, %v) = true", tt.err, other.err)
			}
		}
	}
}

func TestPutLoginCodePrunesCodesExpiredOverADay(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	now := time.Now()
	must(t, s.PutLoginCode(ctx, "old", "ann", now.Add(-25*time.Hour)))
	must(t, s.PutLoginCode(ctx, "recent", "ann", now.Add(-time.Hour)))
	must(t, s.PutLoginCode(ctx, "fresh", "ann", now.Add(time.Minute)))

	if _, err := s.ConsumeLoginCode(ctx, "old", now); !errors.Is(err, store.ErrLoginCodeUnknown) {
		t.Errorf("code expired 25h ago: error = %v, want ErrLoginCodeUnknown (pruned)", err)
	}
	if _, err := s.ConsumeLoginCode(ctx, "recent", now); !errors.Is(err, store.ErrLoginCodeExpired) {
		t.Errorf("code expired 1h ago: error = %v, want ErrLoginCodeExpired (kept)", err)
	}
}

func TestLoginCodeIsNotStoredInTheClear(t *testing.T) {
	ctx := context.Background()
	s, db := openTemp(t)
	must(t, s.PutLoginCode(ctx, testCode, "ann", time.Now().Add(time.Minute)))
	// Read while the store is open, so that SQLite's WAL still holds the write.
	stored := store.StoredBytes(t, db)
	if bytes.Contains(stored, []byte(testCode)) {
		t.Error("the store holds the login code in the clear")
	}
	if !bytes.Contains(stored, []byte("ann")) {
		t.Error("user id not found in what the store holds; the scan reads nothing")
	}
}
