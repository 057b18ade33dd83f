package agentkeys_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/store"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func mustKey(t *testing.T, st *store.Store, n store.NewAgentKey) (store.AgentKey, string) {
	t.Helper()
	k, key, err := st.CreateAgentKey(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	return k, key
}

func TestAuthenticateAgentKey(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	if err := st.PutServer(ctx, store.Server{User: "ann", ID: "aa", Name: "a", URL: "http://x/a"}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	keys := &agentkeys.Keys{Store: st, Now: func() time.Time { return now }}
	ann, annKey := mustKey(t, st, store.NewAgentKey{User: "ann", Name: "ann-bot", Servers: []string{"aa"}, Tools: []string{"aa__echo"}})
	_, bobKey := mustKey(t, st, store.NewAgentKey{User: "bob", Name: "bob-bot", AllServers: true})
	short, shortKey := mustKey(t, st, store.NewAgentKey{User: "ann", Name: "short", AllServers: true, Expires: now.Add(time.Minute)})
	revoked, revokedKey := mustKey(t, st, store.NewAgentKey{User: "ann", Name: "gone", AllServers: true})
	if err := st.RevokeAgentKey(ctx, "ann", revoked.ID); err != nil {
		t.Fatal(err)
	}

	g, err := keys.Authenticate(ctx, annKey)
	if err != nil {
		t.Fatalf("ann's key: %v", err)
	}
	if g.User != "ann" || g.Agent != "ann-bot" || g.KeyID != ann.ID || !slices.Equal(g.Servers, []string{"aa"}) || !slices.Equal(g.Tools, []string{"aa__echo"}) {
		t.Errorf("grant = %+v", g)
	}
	if !g.AllowsTool("aa", "echo", "aa__echo") || g.AllowsTool("aa", "other", "aa__other") || g.AllowsServer("bb") {
		t.Error("the grant does not follow the key's servers and tools")
	}
	if g, err := keys.Authenticate(ctx, bobKey); err != nil || g.User != "bob" || g.Servers != nil {
		t.Errorf("bob's key: %+v, %v; want bob with all servers", g, err)
	}
	if _, err := keys.Authenticate(ctx, shortKey); err != nil {
		t.Errorf("a key before its expiry: %v", err)
	}

	// The secret of one key under the id of another: same shape, wrong hash.
	swapped := store.AgentKeyPrefix + short.ID + annKey[strings.LastIndex(annKey, "_"):]
	wrongSecret := annKey[:len(annKey)-4] + "AAAA"
	if wrongSecret == annKey {
		wrongSecret = annKey[:len(annKey)-4] + "BBBB"
	}
	refused := map[string]string{
		"wrong secret":         wrongSecret,
		"another key's secret": swapped,
		"unknown id":           store.AgentKeyPrefix + "0123456789ab_" + strings.Repeat("x", 43),
		"revoked":              revokedKey,
		"not a key":            "hello",
		"empty":                "",
		"a dashboard token":    "aaa.bbb.ccc",
	}
	for name, bearer := range refused {
		if _, err := keys.Authenticate(ctx, bearer); !errors.Is(err, agentkeys.ErrUnauthorized) {
			t.Errorf("%s: error = %v, want ErrUnauthorized", name, err)
		}
	}
	now = now.Add(time.Minute)
	if _, err := keys.Authenticate(ctx, shortKey); !errors.Is(err, agentkeys.ErrUnauthorized) {
		t.Errorf("a key at its expiry: %v, want ErrUnauthorized", err)
	}

	got, _ := st.AgentKeyByID(ctx, ann.ID)
	if got.LastUsed.IsZero() {
		t.Error("a successful authentication did not record the key's use")
	}
}

// closer records the keys it is told to close.
type closer struct{ closed []string }

func (c *closer) revoked(id string) { c.closed = append(c.closed, id) }

func TestRevokeKeyClosesItsSessions(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	c := &closer{}
	keys := &agentkeys.Keys{Store: st, Revoked: c.revoked}
	res, err := keys.CreateKey(ctx, "ann", wireArgs("bot"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Secret, store.AgentKeyPrefix) || res.Key.ID == "" || !res.Key.AllServers {
		t.Fatalf("create result = %+v", res.Key)
	}
	if err := keys.RevokeKey(ctx, "bob", res.Key.ID); err == nil {
		t.Error("bob revoked ann's key")
	}
	if len(c.closed) != 0 {
		t.Errorf("a refused revocation closed %v", c.closed)
	}
	if err := keys.RevokeKey(ctx, "ann", res.Key.ID); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.closed, []string{res.Key.ID}) {
		t.Errorf("closed %v, want [%s]", c.closed, res.Key.ID)
	}
	if _, err := keys.Authenticate(ctx, res.Secret); !errors.Is(err, agentkeys.ErrUnauthorized) {
		t.Errorf("a revoked key authenticated: %v", err)
	}
	list, _ := keys.ListKeys(ctx, "ann")
	if len(list) != 1 || list[0].Revoked.IsZero() {
		t.Errorf("list after revoke = %+v", list)
	}
}

// hostSite returns keys that accept the agent tokens of an embedding site
// (issuer https://host.example) beside the relay's own tokens, with the
// site's signing key and the relay's.
func hostSite(t *testing.T) (keys *agentkeys.Keys, host, relay ed25519.PrivateKey) {
	t.Helper()
	hostPub, host, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKIXPublicKey(hostPub)
	path := filepath.Join(t.TempDir(), "host.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	hostKeys, err := authn.LoadHostKeys(path)
	if err != nil {
		t.Fatal(err)
	}
	relayPub, relay, _ := ed25519.GenerateKey(rand.Reader)
	v := authn.NewVerifier(authn.VerifierConfig{RelayKey: relayPub, Issuer: "relay", Audience: "switchboard", HostKeys: hostKeys, HostIssuer: "https://host.example"})
	return &agentkeys.Keys{Store: openStore(t), Verifier: v}, host, relay
}

func TestAuthenticateHostAgentToken(t *testing.T) {
	ctx := context.Background()
	keys, priv, relayPriv := hostSite(t)
	sign := func(key any, iss string, agent any) string {
		now := time.Now()
		claims := jwt.MapClaims{"iss": iss, "aud": "switchboard", "sub": "ann", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
		if agent != nil {
			claims[authn.AgentClaim] = agent
		}
		s, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	g, err := keys.Authenticate(ctx, sign(priv, "https://host.example", "report-bot"))
	if err != nil {
		t.Fatal(err)
	}
	if g.User != "host:ann" || g.Agent != "report-bot" || g.Servers != nil || g.Tools != nil || g.Expires.IsZero() {
		t.Errorf("grant = %+v; want host:ann's report-bot on all servers", g)
	}
	g, err = keys.Authenticate(ctx, sign(priv, "https://host.example", map[string]any{"name": "narrow", "servers": []string{"s1"}, "tools": []string{"s1__t"}}))
	if err != nil || !slices.Equal(g.Servers, []string{"s1"}) || !slices.Equal(g.Tools, []string{"s1__t"}) {
		t.Errorf("narrowed grant = %+v, %v", g, err)
	}
	for name, tok := range map[string]string{
		"a host token without the agent claim": sign(priv, "https://host.example", nil),
		"a relay token with the agent claim":   sign(relayPriv, "relay", "bot"),
		"an agent claim without a name":        sign(priv, "https://host.example", map[string]any{"servers": []string{"s1"}}),
	} {
		if _, err := keys.Authenticate(ctx, tok); !errors.Is(err, agentkeys.ErrUnauthorized) {
			t.Errorf("%s: %v, want ErrUnauthorized", name, err)
		}
	}
}

// Two users of an embedding site whose agents share a name (and one agent's
// tokens of different scopes) get grants of different KeyIDs: the gateway
// keeps one view and one rate limit per KeyID, so a shared id would hand
// one user's view to the other.
func TestHostAgentTokensOfDifferentUsersNeverShareAKeyID(t *testing.T) {
	ctx := context.Background()
	keys, priv, _ := hostSite(t)
	grant := func(sub string, agent any) agentkeys.Grant {
		now := time.Now()
		claims := jwt.MapClaims{"iss": "https://host.example", "aud": "switchboard", "sub": sub, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), authn.AgentClaim: agent}
		tok, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims).SignedString(priv)
		if err != nil {
			t.Fatal(err)
		}
		g, err := keys.Authenticate(ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	ann, bob := grant("ann", "claude"), grant("bob", "claude")
	if ann.User == bob.User || ann.KeyID == bob.KeyID {
		t.Errorf("ann's and bob's agents share the KeyID %q", ann.KeyID)
	}
	narrow := grant("ann", map[string]any{"name": "claude", "servers": []string{"s1"}})
	if narrow.KeyID == ann.KeyID {
		t.Errorf("a narrowed token of ann's agent shares the KeyID %q of its wider one", ann.KeyID)
	}
	if again := grant("ann", "claude"); again.KeyID != ann.KeyID {
		t.Errorf("the same agent's next token has KeyID %q, was %q", again.KeyID, ann.KeyID)
	}
	if strings.Contains(ann.KeyID, ".") {
		t.Errorf("the KeyID %q holds a token", ann.KeyID)
	}
}
