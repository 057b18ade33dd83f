package authn_test

import (
	"crypto/tls"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/switchboard-mcp/switchboard/relay/authn"
)

// signedTokens signs, once, a relay token and host tokens (Ed25519 and
// RSA, by kid, and one standing for an agent) and returns them with a
// verifier that trusts their keys and whose clock stands still.
func signedTokens(t *testing.T) (*authn.Verifier, []string) {
	fuzzTokens.once.Do(func() { fuzzTokens.v, fuzzTokens.signed = signTokens(t) })
	return fuzzTokens.v, fuzzTokens.signed
}

var fuzzTokens struct {
	once   sync.Once
	v      *authn.Verifier
	signed []string
}

func signTokens(t *testing.T) (*authn.Verifier, []string) {
	now := time.Now()
	_, v := verifiers(t, func() time.Time { return now })
	relay, err := authn.NewSigner(relayKey(), relayIssuer, relayAudience).Mint("local", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	agent := hostClaims(now)
	agent[authn.AgentClaim] = map[string]any{"id": "a1", "name": "Agent"}
	return v, []string{
		relay,
		sign(t, jwt.SigningMethodEdDSA, hostEdKey(), hostClaims(now), "ed"),
		sign(t, jwt.SigningMethodRS256, hostRSA(), hostClaims(now), "rsa"),
		sign(t, jwt.SigningMethodEdDSA, hostEdKey(), agent, "ed"),
	}
}

// decodedParts is a token's header, claims and signature decoded, so that
// two spellings of the same bytes compare equal.
func decodedParts(token string) []string {
	var out []string
	for _, p := range strings.Split(token, ".") {
		b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(p, "="))
		if err != nil {
			return nil
		}
		out = append(out, string(b))
	}
	return out
}

// acceptedOnlyIfSigned fails t unless token, which v accepted, is one of signed.
func acceptedOnlyIfSigned(t *testing.T, token string, claims authn.Claims, signed []string) {
	t.Helper()
	got := decodedParts(token)
	for _, s := range signed {
		if want := decodedParts(s); len(got) == 3 && len(want) == 3 && got[0] == want[0] && got[1] == want[1] && got[2] == want[2] {
			if claims.Subject == "" || claims.User != claims.Subject && claims.User != authn.HostUserPrefix+claims.Subject {
				t.Fatalf("token %q accepted for subject %q as user %q", token, claims.Subject, claims.User)
			}
			return
		}
	}
	t.Fatalf("accepted a token that was never signed: %q (claims %+v)", token, claims)
}

// FuzzVerify shows any token to a verifier: it accepts only the tokens
// signed with its keys (whatever the spelling of their bytes), each for
// the user its subject names.
func FuzzVerify(f *testing.F) {
	f.Add(0, "")
	f.Add(0, "x")
	f.Add(1, "")
	f.Add(2, "")
	f.Add(3, ".")
	f.Add(0, `{"alg":"none"}`)
	f.Add(1, `{"alg":"HS256","kid":"ed"}`)
	f.Fuzz(func(t *testing.T, which int, tweak string) {
		v, signed := signedTokens(t)
		base := signed[(which%len(signed)+len(signed))%len(signed)]
		// The tweak replaces the token, or one of its parts, or is appended.
		candidates := []string{tweak, base + tweak}
		parts := strings.Split(base, ".")
		for i := range parts {
			p := append([]string(nil), parts...)
			p[i] = base64.RawURLEncoding.EncodeToString([]byte(tweak))
			candidates = append(candidates, strings.Join(p, "."))
		}
		for _, token := range candidates {
			if c, err := v.Verify(token); err == nil {
				acceptedOnlyIfSigned(t, token, c, signed)
			}
			if c, err := v.VerifyAgent(token); err == nil {
				acceptedOnlyIfSigned(t, token, c, signed)
				if c.Agent == nil {
					t.Fatalf("VerifyAgent accepted %q without an agent", token)
				}
			}
		}
	})
}

// FuzzFromRequest reads the credentials of any request: a request with
// neither a session cookie nor an Authorization header carries none, and
// one is accepted only with a token signed with the verifier's keys.
func FuzzFromRequest(f *testing.F) {
	f.Add("", "", 0)
	f.Add("", "Bearer ", 0)
	f.Add("", "bearer   %s  ", 1)
	f.Add("%s", "", 0)
	f.Add("%s", "Bearer x", 2)
	f.Add("", "Basic %s", 0)
	f.Add("", "Bearer %s\x00", 3)
	f.Fuzz(func(t *testing.T, cookie, authorization string, which int) {
		v, signed := signedTokens(t)
		token := signed[(which%len(signed)+len(signed))%len(signed)]
		cookie = strings.ReplaceAll(cookie, "%s", token)
		authorization = strings.ReplaceAll(authorization, "%s", token)
		r := httptest.NewRequest(http.MethodGet, "/ws", nil)
		if cookie != "" {
			r.Header.Set("Cookie", authn.CookieName+"="+cookie)
		}
		if authorization != "" {
			r.Header.Set("Authorization", authorization)
		}
		c, present, err := v.FromRequest(r)
		hasCookie := false
		if ck, err := r.Cookie(authn.CookieName); err == nil && ck.Value != "" {
			hasCookie = true
		}
		if !present && (hasCookie || authorization != "") || present && !hasCookie && authorization == "" {
			t.Fatalf("cookie %q, authorization %q: present %v", cookie, authorization, present)
		}
		if err == nil && present {
			used := strings.TrimSpace(strings.SplitN(authorization, " ", 2)[min(1, len(strings.SplitN(authorization, " ", 2))-1)])
			if hasCookie {
				ck, _ := r.Cookie(authn.CookieName)
				used = ck.Value
			}
			acceptedOnlyIfSigned(t, used, c, signed)
		}
	})
}

// FuzzOriginPolicy checks any Origin header against any Host: a request
// is allowed only from the allowed origin or from the relay's own (the
// scheme it arrived by, and its Host), each compared in lower case with
// the default port dropped.
func FuzzOriginPolicy(f *testing.F) {
	for _, s := range [][2]string{
		{"https://app.example", "relay.example"}, {"https://APP.example:443/", "x"}, {"http://relay.example:8080", "relay.example:8080"},
		{"http://relay.example", "RELAY.example:80"}, {"https://app.example.evil.com", "x"}, {"null", "x"}, {"https://app.example@evil.com", "x"},
		{"http://[::1]:8080", "[::1]:8080"}, {"http://relay.example:0080", "relay.example:80"}, {"https://app.example?", "x"},
	} {
		f.Add(s[0], s[1], false)
		f.Add(s[0], s[1], true)
	}
	policy, err := authn.NewOriginPolicy([]string{"https://app.example"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, origin, host string, viaTLS bool) {
		r := &http.Request{Header: http.Header{"Origin": {origin}}, Host: host}
		scheme := "http"
		if viaTLS {
			r.TLS = &tls.ConnectionState{}
			scheme = "https"
		}
		if !policy.Allowed(r) {
			return
		}
		o, err := url.Parse(origin)
		if err != nil {
			t.Fatalf("allowed Origin %q, which does not parse: %v", origin, err)
		}
		if o.User != nil || o.RawQuery != "" || o.Fragment != "" || o.Path != "" && o.Path != "/" {
			t.Fatalf("allowed Origin %q, which is not an origin", origin)
		}
		allowed := strings.EqualFold(o.Scheme, "https") && strings.EqualFold(o.Hostname(), "app.example") && samePort("https", o.Port(), "")
		own, err := url.Parse(scheme + "://" + host)
		same := err == nil && strings.EqualFold(o.Scheme, scheme) && strings.EqualFold(o.Hostname(), own.Hostname()) && samePort(scheme, o.Port(), own.Port())
		if !allowed && !same {
			t.Fatalf("allowed Origin %q with Host %q over %s", origin, host, scheme)
		}
	})
}

// samePort compares two ports of scheme, the default one written or not.
func samePort(scheme, a, b string) bool {
	def := map[string]string{"http": "80", "https": "443"}[scheme]
	norm := func(p string) string {
		p = strings.TrimLeft(p, "0")
		if p == "" || p == def {
			return ""
		}
		return p
	}
	return norm(a) == norm(b)
}
