package store

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

func TestIdentityTokensAreSealedPerUser(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	it := s.IdentityTokens(s.Sealer())
	exp := time.UnixMilli(time.Now().Add(time.Hour).UnixMilli())
	in := IdentityToken{User: "ann", Issuer: "https://idp.example", IDToken: "id-secret", RefreshToken: "refresh-secret", Expiry: exp}
	if err := it.Put(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, ok, err := it.Get(ctx, "ann")
	if err != nil || !ok || got.IDToken != in.IDToken || got.RefreshToken != in.RefreshToken || !got.Expiry.Equal(exp) || got.Issuer != in.Issuer {
		t.Fatalf("Get(ann) = %+v, %v, %v", got, ok, err)
	}
	var sealed []byte
	if err := s.db.QueryRowContext(ctx, `SELECT secrets FROM identity_tokens WHERE user_id = 'ann'`).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("secret")) {
		t.Errorf("the tokens are stored in the clear: %q", sealed)
	}
	// ann's sealed tokens copied into bob's row do not open.
	if _, err := s.db.ExecContext(ctx, `INSERT INTO identity_tokens (user_id, issuer, secrets, expires_at, updated_at)
		SELECT 'bob', issuer, secrets, expires_at, updated_at FROM identity_tokens WHERE user_id = 'ann'`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := it.Get(ctx, "bob"); !errors.Is(err, ErrUnseal) {
		t.Errorf("ann's tokens in bob's row: %v; want ErrUnseal", err)
	}
	if err := it.Delete(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := it.Get(ctx, "ann"); ok || err != nil {
		t.Errorf("after Delete: ok %v, err %v", ok, err)
	}
}
