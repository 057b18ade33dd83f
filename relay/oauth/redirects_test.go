package oauth

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// bodies records the bodies of the requests a server received.
type bodies struct {
	mu  sync.Mutex
	got []string
}

func (b *bodies) record(r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.got = append(b.got, r.URL.Path+" "+string(raw)+" "+r.Header.Get("Authorization"))
}

func (b *bodies) all() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.got...)
}

// redirecting starts a server that redirects every request to target with
// status, and the target, which records what reaches it and answers ok.
func redirecting(t *testing.T, status int, ok string) (from string, reached *bodies) {
	t.Helper()
	reached = &bodies{}
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.record(r)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, ok)
	}))
	t.Cleanup(target.Close)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+r.URL.Path, status)
	}))
	t.Cleanup(redirector.Close)
	return redirector.URL, reached
}

func TestTokenRequestsAndRegistrationsFollowNoRedirect(t *testing.T) {
	const secret, refresh = "client-secret-1", "refresh-token-1"
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			m := testManager(t)
			ctx := context.Background()
			from, reached := redirecting(t, status, `{"access_token":"at","token_type":"Bearer","client_id":"c"}`)
			for _, method := range []string{methodPost, methodBasic} {
				_, err := m.requestToken(ctx, from+"/token", url.Values{"grant_type": {grantRefreshToken}, "refresh_token": {refresh}},
					&identity{clientID: "c", secret: secret, method: method})
				if err == nil || !strings.Contains(err.Error(), "redirect") {
					t.Errorf("token request (%s) redirected with %d: %v", method, status, err)
				}
				if grantRefused(err) {
					t.Errorf("a redirect reads as a refused grant: %v", err)
				}
			}
			_, err := m.register(ctx, &oauthex.AuthServerMeta{Issuer: from, RegistrationEndpoint: from + "/register"})
			if err == nil || !strings.Contains(err.Error(), "redirect") {
				t.Errorf("registration redirected with %d: %v", status, err)
			}
			if got := reached.all(); len(got) != 0 {
				t.Errorf("the redirect target received %q", got)
			}
		})
	}
}

func TestMetadataIsNotFetchedOverADowngradingRedirect(t *testing.T) {
	const doc = `{"resource":"https://mcp.example/mcp","authorization_servers":["https://as.example"]}`
	reached := &bodies{}
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.record(r)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, doc)
	}))
	defer plain.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/down":
			http.Redirect(w, r, plain.URL+"/meta", http.StatusFound)
		case "/up":
			http.Redirect(w, r, "/meta", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, doc)
		}
	}))
	defer secure.Close()
	hc := noDowngrade(secure.Client())
	ctx := context.Background()

	if _, err := getJSON[oauthex.ProtectedResourceMetadata](ctx, hc, secure.URL+"/down"); !errors.Is(err, errDowngrade) {
		t.Errorf("https redirected to http: %v, want refused", err)
	}
	if got := reached.all(); len(got) != 0 {
		t.Errorf("the plain-text target was asked: %q", got)
	}
	if prm, err := getJSON[oauthex.ProtectedResourceMetadata](ctx, hc, secure.URL+"/up"); err != nil || prm.Resource != "https://mcp.example/mcp" {
		t.Errorf("https redirected to https: %v", err)
	}
	// http to http is left to the configured policy (netguard's).
	m := testManager(t)
	from, _ := redirecting(t, http.StatusFound, doc)
	if _, err := getJSON[oauthex.ProtectedResourceMetadata](ctx, m.fetch, from+"/meta"); err != nil {
		t.Errorf("http redirected to http: %v", err)
	}
}

func TestRedactionSeesThroughInvisibleCharactersAndEncodings(t *testing.T) {
	const secret = "s3cr3t/value+with=chars"
	for _, tc := range []struct{ name, text string }{
		{"as sent", "you sent " + secret},
		{"broken by a zero-width space", "you sent s3cr3t\u200b/value+with=chars"},
		{"broken by a soft hyphen and a BOM", "you sent s3cr\u00ad3t/val\ufeffue+with=chars"},
		{"form-encoded", "you sent " + url.QueryEscape(secret)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := redact(tc.text, secret, "")
			if strings.Contains(got, "s3cr") || !strings.Contains(got, redacted) {
				t.Errorf("redact(%q) = %q", tc.text, got)
			}
		})
	}
}

func TestTokenErrorsEchoingTheRequestRevealNothing(t *testing.T) {
	const secret, code, verifier = "client+secret/1", "code-value-1", "verifier-value-1"
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(raw))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		// Echo what was sent, raw, form-encoded and with invisible characters.
		zw := func(s string) string { return s[:3] + "\u200b" + s[3:] }
		io.WriteString(w, `{"error":"invalid_grant","error_description":"`+
			zw(form.Get("code"))+" "+zw(form.Get("code_verifier"))+" "+zw(form.Get("client_secret"))+" "+strings.ReplaceAll(string(raw), `"`, ``)+`"}`)
	}))
	defer endpoint.Close()
	m := testManager(t)
	_, err := m.requestToken(context.Background(), endpoint.URL, url.Values{"grant_type": {grantAuthorizationCode}, "code": {code}, "code_verifier": {verifier}},
		&identity{clientID: "c", secret: secret, method: methodPost})
	if err == nil {
		t.Fatal("no error")
	}
	msg := message(err)
	for _, s := range []string{secret, url.QueryEscape(secret), code, verifier, "code-value", "verifier-value", "client+secret", "client%2Bsecret"} {
		if strings.Contains(msg, s) {
			t.Errorf("the message %q holds %q", msg, s)
		}
	}
	if !strings.Contains(msg, "invalid_grant") || !strings.Contains(msg, redacted) {
		t.Errorf("message %q, want the refusal with the secrets redacted", msg)
	}
}
