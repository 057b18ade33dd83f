package store_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

const (
	testRequestID = "cmVxdWVzdC1pZC1vZi1hbi1hZ2VudHMtYXV0aG9yaXphdGlvbg"
	testAgentCode = "Y29kZS1vZi1hbi1hZ2VudHMtYXV0aG9yaXphdGlvbi1mb3ItdGVzdHM"
)

// approvedAgentCode stores request id in a fresh store and approves it
// for ann with code.
func approvedAgentCode(t *testing.T, id, code string, now time.Time) (*store.Store, store.TestDB) {
	t.Helper()
	ctx := context.Background()
	s, db := openTemp(t)
	must(t, s.PutAgentAuthorization(ctx, id, []byte(`{"asked":true}`), now, now.Add(10*time.Minute), 10))
	must(t, s.ApproveAgentAuthorization(ctx, id, "ann", code, []byte(`{"approved":true}`), now, now.Add(time.Minute)))
	return s, db
}

func TestAgentAuthorizationIsAnsweredOnce(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	now := time.Now()
	for _, id := range []string{"to-approve", "to-deny"} {
		must(t, s.PutAgentAuthorization(ctx, id, []byte(`{"id":"`+id+`"}`), now, now.Add(time.Minute), 10))
	}
	a, err := s.PendingAgentAuthorization(ctx, "to-approve", now)
	if err != nil || string(a.Body) != `{"id":"to-approve"}` || a.User != "" || !a.Expires.Equal(now.Add(time.Minute).Truncate(time.Millisecond)) {
		t.Fatalf("pending: %+v %v", a, err)
	}

	must(t, s.ApproveAgentAuthorization(ctx, "to-approve", "ann", testAgentCode, []byte(`{"approved":true}`), now, now.Add(time.Minute)))
	if err := s.ApproveAgentAuthorization(ctx, "to-approve", "bob", "another-code", []byte(`{}`), now, now.Add(time.Minute)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a second approval: %v, want ErrNotFound", err)
	}
	if _, err := s.DenyAgentAuthorization(ctx, "to-approve", now); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a denial after the approval: %v, want ErrNotFound", err)
	}
	if _, err := s.PendingAgentAuthorization(ctx, "to-approve", now); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an approved request still pending: %v", err)
	}

	a, err = s.DenyAgentAuthorization(ctx, "to-deny", now)
	if err != nil || string(a.Body) != `{"id":"to-deny"}` {
		t.Errorf("deny: %+v %v, want the request back", a, err)
	}
	if err := s.ApproveAgentAuthorization(ctx, "to-deny", "ann", "a-code", []byte(`{}`), now, now.Add(time.Minute)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an approval after the denial: %v, want ErrNotFound", err)
	}

	// The approved request's code is what the approval made it.
	a, err = s.SpendAgentCode(ctx, testAgentCode, now)
	if err != nil || a.User != "ann" || string(a.Body) != `{"approved":true}` {
		t.Errorf("spend: %+v %v", a, err)
	}
}

func TestAgentCodeIsSpentOnceAndItsReuseNamesItsGrant(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	s, _ := approvedAgentCode(t, testRequestID, testAgentCode, now)
	if _, err := s.SpendAgentCode(ctx, testAgentCode+"x", now); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown code: %v, want ErrNotFound", err)
	}
	if _, err := s.SpendAgentCode(ctx, testAgentCode, now); err != nil {
		t.Fatal(err)
	}
	reused, err := s.AgentCodeGranted(ctx, testAgentCode, "g1")
	if err != nil || reused {
		t.Fatalf("granted: reused %v, %v; want false", reused, err)
	}
	a, err := s.SpendAgentCode(ctx, testAgentCode, now.Add(time.Hour)) // expired too: still known as spent
	if !errors.Is(err, store.ErrCodeReused) || a.GrantID != "g1" || a.User != "ann" {
		t.Errorf("the code again: %+v %v, want ErrCodeReused naming g1", a, err)
	}
}

// A code that comes again before its first spend made its grant is told to
// the first spender, which revokes the grant.
func TestAgentCodeReusedBeforeItsGrantIsToldToTheFirstSpender(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	s, _ := approvedAgentCode(t, testRequestID, testAgentCode, now)
	if _, err := s.SpendAgentCode(ctx, testAgentCode, now); err != nil {
		t.Fatal(err)
	}
	if a, err := s.SpendAgentCode(ctx, testAgentCode, now); !errors.Is(err, store.ErrCodeReused) || a.GrantID != "" {
		t.Fatalf("the code again: %+v %v, want ErrCodeReused without a grant", a, err)
	}
	if reused, err := s.AgentCodeGranted(ctx, testAgentCode, "g1"); err != nil || !reused {
		t.Errorf("granted: reused %v, %v; want true", reused, err)
	}
}

// Relays spending one code at the same moment: one of them spends it.
func TestAgentCodeSpentAtOnceByManyRelaysIsSpentOnce(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	s, db := approvedAgentCode(t, testRequestID, testAgentCode, now)
	relays := []*store.Store{s, store.OpenAt(t, db), store.OpenAt(t, db), store.OpenAt(t, db)}
	var spent atomic.Int32
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			_, err := relays[i%len(relays)].SpendAgentCode(ctx, testAgentCode, now)
			switch {
			case err == nil:
				spent.Add(1)
			case !errors.Is(err, store.ErrCodeReused):
				t.Errorf("spend: %v", err)
			}
		})
	}
	wg.Wait()
	if n := spent.Load(); n != 1 {
		t.Errorf("the code was spent %d times, want once", n)
	}
}

func TestAgentAuthorizationsExpire(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	now := time.Now()
	expires := now.Add(time.Minute)
	must(t, s.PutAgentAuthorization(ctx, "late", []byte(`{}`), now, expires, 10))
	if _, err := s.PendingAgentAuthorization(ctx, "late", expires); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a request at its expiry: %v, want ErrNotFound", err)
	}
	if err := s.ApproveAgentAuthorization(ctx, "late", "ann", "c1", []byte(`{}`), expires, expires.Add(time.Minute)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an approval at the request's expiry: %v, want ErrNotFound", err)
	}
	if _, err := s.DenyAgentAuthorization(ctx, "late", expires); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a denial at the request's expiry: %v, want ErrNotFound", err)
	}
	must(t, s.ApproveAgentAuthorization(ctx, "late", "ann", "c1", []byte(`{}`), now, expires))
	if _, err := s.SpendAgentCode(ctx, "c1", expires); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a code at its expiry: %v, want ErrNotFound", err)
	}
	// An expired attempt does not burn the code for an earlier clock.
	if a, err := s.SpendAgentCode(ctx, "c1", expires.Add(-time.Second)); err != nil || a.User != "ann" {
		t.Errorf("the code before its expiry: %+v %v", a, err)
	}
}

// At most max requests wait for a person; approved and expired ones do
// not count, and those expired for a day are forgotten.
func TestPendingAgentAuthorizationsAreBounded(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	now := time.Now()
	put := func(id string, at time.Time) error {
		return s.PutAgentAuthorization(ctx, id, []byte(`{}`), at, at.Add(time.Minute), 2)
	}
	must(t, put("r1", now))
	must(t, put("r2", now))
	if err := put("r3", now); !errors.Is(err, store.ErrTooManyPending) {
		t.Fatalf("a third pending request: %v, want ErrTooManyPending", err)
	}
	must(t, s.ApproveAgentAuthorization(ctx, "r1", "ann", testAgentCode, []byte(`{}`), now, now.Add(time.Minute)))
	must(t, put("r3", now))
	must(t, put("r4", now.Add(time.Minute))) // r2 and r3 expired
	if _, err := s.SpendAgentCode(ctx, testAgentCode, now); err != nil {
		t.Fatal(err)
	}
	must(t, put("r5", now.Add(25*time.Hour)))
	if _, err := s.SpendAgentCode(ctx, testAgentCode, now); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a code spent a day before: %v, want ErrNotFound (forgotten)", err)
	}
}

func TestAgentAuthorizationKeepsItsIDAndCodeOnlyAsHashes(t *testing.T) {
	now := time.Now()
	_, db := approvedAgentCode(t, testRequestID, testAgentCode, now)
	stored := store.StoredBytes(t, db)
	for name, secret := range map[string]string{"request id": testRequestID, "code": testAgentCode} {
		if bytes.Contains(stored, []byte(secret)) {
			t.Errorf("the store holds the %s in the clear", name)
		}
	}
	if !bytes.Contains(stored, []byte(`{"approved":true}`)) {
		t.Error("the body is not in what the store holds; the scan reads nothing")
	}
}
