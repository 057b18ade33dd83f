package service

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/store"
)

func TestServiceServesTheOAuthCallbackAndClientMetadata(t *testing.T) {
	dir := t.TempDir()
	svc, err := New(context.Background(), Config{
		DataDir:                dir,
		PublicURL:              "http://127.0.0.1:8080",
		OAuthClientMetadataURL: "https://relay.example/.well-known/switchboard-client.json",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()

	rec := httptest.NewRecorder()
	svc.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1:8080"+oauth.CallbackPath+"?state=forged&code=x", nil))
	body, _ := io.ReadAll(rec.Body)
	if rec.Code != http.StatusBadRequest || !strings.Contains(string(body), "Authorization failed") {
		t.Errorf("forged callback: %d %s", rec.Code, body)
	}

	rec = httptest.NewRecorder()
	svc.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1:8080/.well-known/switchboard-client.json", nil))
	var doc struct {
		ClientID     string   `json:"client_id"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil || doc.ClientID != "https://relay.example/.well-known/switchboard-client.json" ||
		len(doc.RedirectURIs) != 1 || doc.RedirectURIs[0] != "http://127.0.0.1:8080"+oauth.CallbackPath {
		t.Errorf("metadata document %d %+v %v", rec.Code, doc, err)
	}

	info, err := os.Stat(filepath.Join(dir, store.SealKeyFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("seal key file: %v, %v", info, err)
	}
}

func TestServiceRefusesAClientMetadataURLOnARelayRoute(t *testing.T) {
	for _, path := range []string{"/login", oauth.StartPath} {
		_, err := New(context.Background(), Config{DataDir: t.TempDir(), PublicURL: "https://relay.example", OAuthClientMetadataURL: "https://relay.example" + path})
		if err == nil || !strings.Contains(err.Error(), "route of the relay") {
			t.Errorf("New with the client metadata document at %s: %v", path, err)
		}
	}
}

func TestServiceStartPageNeedsTheRelaySession(t *testing.T) {
	svc, err := New(context.Background(), Config{DataDir: t.TempDir(), PublicURL: "http://127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	token, err := svc.Mint("ann", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		cookie string
		status int
		says   string
	}{
		{"without a session", "", http.StatusUnauthorized, "not signed in"},
		{"with a forged session", "not-a-token", http.StatusUnauthorized, "not signed in"},
		{"with the session, for an unknown authorization", token, http.StatusForbidden, "started by someone else"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "http://127.0.0.1:8080"+oauth.StartPath+"?state=forged", nil)
			if tc.cookie != "" {
				req.AddCookie(&http.Cookie{Name: authn.CookieName, Value: tc.cookie})
			}
			rec := httptest.NewRecorder()
			svc.Handler().ServeHTTP(rec, req)
			if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.says) || rec.Header().Get("Location") != "" {
				t.Errorf("start page %d to %q: %s", rec.Code, rec.Header().Get("Location"), rec.Body)
			}
		})
	}
}
