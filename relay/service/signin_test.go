package service

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/authn"
)

func TestSignOutClearsTheSessionOnlyFromTheRelaysOwnPages(t *testing.T) {
	svc, err := New(context.Background(), Config{DataDir: t.TempDir(), PublicURL: "http://127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"another site", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"no origin", nil, http.StatusForbidden},
		{"the dashboard (no referrer)", map[string]string{"Origin": "null", "Sec-Fetch-Site": "same-origin"}, http.StatusSeeOther},
		{"the public origin", map[string]string{"Origin": "http://127.0.0.1:8080"}, http.StatusSeeOther},
	} {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080"+authn.LogoutPath, nil)
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		svc.Handler().ServeHTTP(rec, req)
		cleared := false
		for _, c := range rec.Result().Cookies() {
			cleared = cleared || (c.Name == authn.CookieName && c.MaxAge < 0)
		}
		if rec.Code != tc.want || cleared != (tc.want == http.StatusSeeOther) {
			t.Errorf("%s: status %d, cookie cleared %v; want %d", tc.name, rec.Code, cleared, tc.want)
		}
	}
}
