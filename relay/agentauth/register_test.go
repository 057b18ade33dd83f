package agentauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// postRegister registers through the handler from addr.
func postRegister(s *Server, addr, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1"+RegisterPath, strings.NewReader(body))
	req.RemoteAddr = addr + ":5555"
	rec := httptest.NewRecorder()
	s.serveRegister(rec, req)
	return rec
}

const registration1 = `{"client_name":"A","redirect_uris":["http://127.0.0.1:1/cb"]}`

func TestRegistrationIsRateLimitedPerAddress(t *testing.T) {
	s := newTestServer(t, true, false)
	for i := range registerBurst {
		if rec := postRegister(s, "10.0.0.1", registration1); rec.Code != http.StatusCreated {
			t.Fatalf("registration %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	if rec := postRegister(s, "10.0.0.1", registration1); rec.Code != http.StatusTooManyRequests {
		t.Errorf("one registration past the burst: %d, want 429", rec.Code)
	}
	if rec := postRegister(s, "10.0.0.2", registration1); rec.Code != http.StatusCreated {
		t.Errorf("another address: %d, want 201", rec.Code)
	}
}

func TestRegistrationRefusesBadMetadata(t *testing.T) {
	s := newTestServer(t, true, false)
	for _, body := range []string{
		`{"redirect_uris":[]}`,
		`{"redirect_uris":["http://app.example/cb"]}`,
		`{"redirect_uris":["https://app.example/cb#frag"]}`,
		`{"redirect_uris":["https://app.example/cb"],"grant_types":["client_credentials"]}`,
		`not json`,
	} {
		rec := postRegister(s, "10.0.0.3", body)
		var e oauthError
		json.Unmarshal(rec.Body.Bytes(), &e)
		if rec.Code != http.StatusBadRequest || e.Code == "" {
			t.Errorf("%s: %d %s, want 400 with an OAuth error", body, rec.Code, rec.Body)
		}
	}
}

func TestUnusedRegistrationExpires(t *testing.T) {
	s := newTestServer(t, true, false)
	now := time.Now()
	s.cfg.Now = func() time.Time { return now }
	rec := postRegister(s, "10.0.0.4", registration1)
	var reg struct {
		ClientID string `json:"client_id"`
	}
	json.Unmarshal(rec.Body.Bytes(), &reg)
	if _, err := s.lookupClient(context.Background(), reg.ClientID); err != nil {
		t.Fatalf("fresh registration: %v", err)
	}
	now = now.Add(s.cfg.ClientTTL + time.Second)
	if _, err := s.lookupClient(context.Background(), reg.ClientID); !errors.Is(err, errNoClient) {
		t.Errorf("registration unused past its lifetime: %v, want unknown", err)
	}
	_, err := s.cfg.Store.(*store.Store).AgentClientByID(context.Background(), reg.ClientID, time.Time{})
	postRegister(s, "10.0.0.4", registration1) // sweeps
	if _, err2 := s.cfg.Store.(*store.Store).AgentClientByID(context.Background(), reg.ClientID, time.Time{}); err != nil || !errors.Is(err2, store.ErrNotFound) {
		t.Errorf("before the sweep %v, after %v: want found, then gone", err, err2)
	}
}

func TestOneIPv6SiteIsOneAddressToTheLimits(t *testing.T) {
	host := func(addr string) string {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.RemoteAddr = addr
		return remoteHost(r)
	}
	if a, b := host("[2001:db8:1:2::1]:5000"), host("[2001:db8:1:2:ffff::9]:6000"); a != b {
		t.Errorf("two addresses of one /64 are limited apart: %q, %q", a, b)
	}
	if a, b := host("[2001:db8:1:2::1]:5000"), host("[2001:db8:1:3::1]:5000"); a == b {
		t.Errorf("two /64s share a limit: %q", a)
	}
	if got := host("192.0.2.7:5000"); got != "192.0.2.7" {
		t.Errorf("an IPv4 address is limited as %q", got)
	}
}
