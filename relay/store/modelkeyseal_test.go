package store

import (
	"context"
	"errors"
	"testing"
)

func TestModelKeyMovedToAnotherOwnerDoesNotOpen(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	keys := s.ModelKeys(s.Sealer())
	if err := keys.Set(ctx, "ann", "m1", "ann-key"); err != nil {
		t.Fatal(err)
	}
	// Copy ann's sealed key into bob's row and into another model's.
	for _, to := range []struct{ user, model string }{{"bob", "m1"}, {"ann", "m2"}} {
		_, err := s.db.ExecContext(ctx, `INSERT INTO model_keys (user_id, model, key, created_at)
			SELECT ?, ?, key, created_at FROM model_keys WHERE user_id = 'ann' AND model = 'm1'`, to.user, to.model)
		if err != nil {
			t.Fatal(err)
		}
		if k, err := keys.Get(ctx, to.user, to.model); !errors.Is(err, ErrUnseal) || k != "" {
			t.Errorf("ann's key copied to %s/%s: %q, %v; want ErrUnseal", to.user, to.model, k, err)
		}
	}
	if k, err := keys.Get(ctx, "ann", "m1"); k != "ann-key" || err != nil {
		t.Errorf("ann's own key = %q, %v", k, err)
	}
}
