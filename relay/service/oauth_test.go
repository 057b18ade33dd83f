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
	_, err := New(context.Background(), Config{DataDir: t.TempDir(), OAuthClientMetadataURL: "https://relay.example/login"})
	if err == nil || !strings.Contains(err.Error(), "route of the relay") {
		t.Errorf("New: %v", err)
	}
}
