package authn_test

import (
	"crypto/ed25519"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/authn"
)

func TestFromRequest(t *testing.T) {
	signer := authn.NewSigner(relayKey(), relayIssuer, relayAudience)
	good, err := signer.Mint("ann", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	other, err := signer.Mint("bob", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	v := authn.NewVerifier(authn.VerifierConfig{
		RelayKey: relayKey().Public().(ed25519.PublicKey),
		Issuer:   relayIssuer, Audience: relayAudience,
	})
	tests := []struct {
		name        string
		target      string
		cookie      string
		auth        string
		wantSub     string
		wantPresent bool
		wantErr     error
	}{
		{"cookie", "/", good, "", "ann", true, nil},
		{"bearer header", "/", "", "Bearer " + good, "ann", true, nil},
		{"bearer scheme in lower case", "/", "", "bearer " + good, "ann", true, nil},
		{"cookie before header", "/", good, "Bearer " + other, "ann", true, nil},
		{"nothing", "/", "", "", "", false, nil},
		{"token in the query is not read", "/?token=" + good + "&access_token=" + good, "", "", "", false, nil},
		{"basic auth", "/", "", "Basic YW5uOnB3", "", true, authn.ErrBadAuthorization},
		{"empty bearer", "/", "", "Bearer ", "", true, authn.ErrBadAuthorization},
		{"invalid cookie", "/", "garbage", "", "", true, authn.ErrMalformedToken},
		{"invalid bearer", "/", "", "Bearer garbage", "", true, authn.ErrMalformedToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", tt.target, nil)
			if tt.cookie != "" {
				r.AddCookie(&http.Cookie{Name: authn.CookieName, Value: tt.cookie})
			}
			if tt.auth != "" {
				r.Header.Set("Authorization", tt.auth)
			}
			claims, present, err := v.FromRequest(r)
			if present != tt.wantPresent || claims.Subject != tt.wantSub || !errors.Is(err, tt.wantErr) || (err != nil) != (tt.wantErr != nil) {
				t.Errorf("FromRequest = %+v, %v, %v; want sub %q, %v, %v", claims, present, err, tt.wantSub, tt.wantPresent, tt.wantErr)
			}
		})
	}
}

func TestSessionCookieAttributes(t *testing.T) {
	expires := time.Now().Add(time.Hour).Truncate(time.Second)
	for _, secure := range []bool{false, true} {
		c := authn.SessionCookie("tok", expires, secure)
		if c.Name != authn.CookieName || c.Value != "tok" || c.Path != "/" || !c.HttpOnly ||
			c.SameSite != http.SameSiteStrictMode || c.Secure != secure || !c.Expires.Equal(expires) {
			t.Errorf("SessionCookie(secure=%v) = %+v", secure, c)
		}
	}
}
