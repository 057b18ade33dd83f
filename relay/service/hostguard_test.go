package service

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// The Host check reads the Host header as sent, which no URL parser has
// seen: a port that is not a number is refused, so that a name after it
// cannot ride on a loopback one.
func TestHostGuardReadsTheRawHost(t *testing.T) {
	guard := hostGuard([]string{"relay.example"}, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	for host, want := range map[string]int{
		"localhost:8080":        http.StatusNoContent,
		"[::1]:80":              http.StatusNoContent,
		"::1":                   http.StatusNoContent,
		"relay.example":         http.StatusNoContent,
		"localhost:80@evil.com": http.StatusMisdirectedRequest,
		"127.0.0.1:x":           http.StatusMisdirectedRequest,
		"localhost:80 evil.com": http.StatusMisdirectedRequest,
		"evil.com:80":           http.StatusMisdirectedRequest,
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = host
		w := httptest.NewRecorder()
		guard.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("Host %q: status %d, want %d", host, w.Code, want)
		}
	}
}
