package agentkeys

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// KeyStore is the persistence of agent keys; *store.Store satisfies it.
type KeyStore interface {
	CreateAgentKey(ctx context.Context, n store.NewAgentKey) (store.AgentKey, string, error)
	AgentKeyByID(ctx context.Context, id string) (store.AgentKey, error)
	AgentKeys(ctx context.Context, user string) ([]store.AgentKey, error)
	RevokeAgentKey(ctx context.Context, user, id string) error
	TouchAgentKey(ctx context.Context, id string, now time.Time) error
}

// Keys authenticates agents by their keys (stored as hashes) and by tokens
// an embedding site mints with an [authn.AgentClaim], and manages the keys
// for the dashboard and the command line.
type Keys struct {
	Store KeyStore
	// Verifier checks tokens; nil accepts agent keys only.
	Verifier *authn.Verifier
	// Tokens authenticates the OAuth access tokens the relay issues
	// (store.AccessTokenPrefix); nil refuses them.
	Tokens Authenticator
	// Revoked is told the id of a key that stopped working (revoked here,
	// or seen revoked by [Keys.Closed]), to end its agent's sessions and
	// calls; nil tells nobody.
	Revoked func(keyID string)
	Logger  *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	cacheMu sync.Mutex
	cache   map[string]cachedKey // keys read lately, by id (keycache.go)
	evicted map[string]uint64    // evictions, by id

	owedMu   sync.Mutex
	owed     map[string]time.Time // last uses a full disk refused, by key id (owed.go)
	lostUses int64                // uses never written because too many were owed
	retrying bool                 // a goroutine writes the owed uses again
}

// HostAgentKeyPrefix starts the KeyID of a grant from an embedding site's
// token: such grants cannot be revoked here, they expire with the token.
const HostAgentKeyPrefix = "host-token:"

// hostKeyID is the KeyID of an embedding site's agent token: it names the
// user, the agent and its scope, because the gateway keeps one view and
// one rate limit per KeyID. Two users' agents of the same name (or one
// agent's tokens of different scopes) must never share them.
func hostKeyID(c authn.Claims) string {
	scope, _ := json.Marshal([]any{c.User, c.Agent.Name, c.Agent.Servers, c.Agent.Tools})
	sum := sha256.Sum256(scope)
	return HostAgentKeyPrefix + c.Agent.Name + ":" + hex.EncodeToString(sum[:8])
}

func (k *Keys) now() time.Time {
	if k.Now != nil {
		return k.Now()
	}
	return time.Now()
}

// Authenticate implements [Authenticator]. An agent key (store.AgentKeyPrefix)
// is looked up by its id and its hash compared in constant time; an OAuth
// access token (store.AccessTokenPrefix) goes to Tokens; anything else
// must be an embedding site's token carrying an agent claim.
func (k *Keys) Authenticate(ctx context.Context, bearer string) (Grant, error) {
	if _, ok := store.AgentKeyID(bearer); ok {
		return k.fromKey(ctx, bearer)
	}
	if strings.HasPrefix(bearer, store.AccessTokenPrefix) {
		if k.Tokens == nil {
			return Grant{}, ErrUnauthorized
		}
		return k.Tokens.Authenticate(ctx, bearer)
	}
	if k.Verifier == nil || strings.Count(bearer, ".") != 2 {
		return Grant{}, ErrUnauthorized
	}
	c, err := k.Verifier.VerifyAgent(bearer)
	if err != nil || !strings.HasPrefix(c.User, authn.HostUserPrefix) {
		return Grant{}, ErrUnauthorized
	}
	return Grant{
		User: c.User, Agent: c.Agent.Name, KeyID: hostKeyID(c),
		Servers: c.Agent.Servers, Tools: c.Agent.Tools, Expires: c.Expires,
	}, nil
}

// fromKey checks an agent key against its stored hash.
func (k *Keys) fromKey(ctx context.Context, bearer string) (Grant, error) {
	id, _ := store.AgentKeyID(bearer)
	now := k.now()
	rec, err := k.cachedKeyRecord(ctx, id, now)
	if errors.Is(err, store.ErrNotFound) {
		// Compare anyway, so an unknown id costs what a known one does.
		subtle.ConstantTimeCompare(store.HashAgentKey(bearer), make([]byte, 32))
		return Grant{}, ErrUnauthorized
	}
	if err != nil {
		return Grant{}, fmt.Errorf("authenticate agent: %w", err)
	}
	match := subtle.ConstantTimeCompare(store.HashAgentKey(bearer), rec.Hash) == 1
	switch {
	case !match, !rec.Revoked.IsZero(), !rec.Expires.IsZero() && !now.Before(rec.Expires):
		return Grant{}, ErrUnauthorized
	}
	k.touch(ctx, rec.ID, now)
	g := Grant{User: rec.User, Agent: rec.Name, KeyID: rec.ID, Tools: rec.Tools, Expires: rec.Expires, ForwardSampling: rec.ForwardSampling, ToolMode: wire.ToolMode(rec.ToolMode)}
	if !rec.AllServers {
		g.Servers = rec.Servers
		if g.Servers == nil {
			g.Servers = []string{} // chosen servers, all gone: none
		}
	}
	return g, nil
}

// ListKeys lists user's keys, revoked and expired ones included.
func (k *Keys) ListKeys(ctx context.Context, user string) ([]wire.AgentKey, error) {
	recs, err := k.Store.AgentKeys(ctx, user)
	if err != nil {
		return nil, k.internal("list agent keys", err)
	}
	out := make([]wire.AgentKey, len(recs))
	for i, r := range recs {
		out[i] = wireKey(r)
	}
	return out, nil
}

// CreateKey mints a key for user; the result's Secret is its only copy.
func (k *Keys) CreateKey(ctx context.Context, user string, args wire.CreateAgentKeyArgs) (wire.CreateAgentKeyResult, error) {
	n, err := NewKeyRequest(user, args.Name, args.Servers, args.Tools, args.TTL, k.now())
	if err != nil {
		return wire.CreateAgentKeyResult{}, err
	}
	n.ForwardSampling = args.ForwardSampling
	switch {
	case args.ToolMode == "":
		n.ToolMode = string(wire.ToolModeTools)
	case args.ToolMode.Valid():
		n.ToolMode = string(args.ToolMode)
	default:
		return wire.CreateAgentKeyResult{}, wire.NewError(wire.CodeBadRequest, `the tool mode is one of "tools", "code" and "both"`)
	}
	rec, secret, err := k.Store.CreateAgentKey(ctx, n)
	if errors.Is(err, store.ErrNotFound) {
		return wire.CreateAgentKeyResult{}, wire.NewError(wire.CodeNotFound, "a chosen server does not exist (was it removed?)")
	}
	if err != nil {
		return wire.CreateAgentKeyResult{}, k.internal("create agent key", err)
	}
	if k.Logger != nil {
		k.Logger.Info("agent key created", "user", user, "key", rec.ID)
	}
	return wire.CreateAgentKeyResult{Key: wireKey(rec), Secret: secret}, nil
}

// RevokeKey revokes key id of user: it stops working at once and its
// agent's live sessions are closed.
func (k *Keys) RevokeKey(ctx context.Context, user, id string) error {
	err := k.Store.RevokeAgentKey(ctx, user, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return wire.NewError(wire.CodeNotFound, "no such agent key")
	case errors.Is(err, store.ErrKeyRevoked):
		return wire.NewError(wire.CodeBadRequest, "this key is already revoked")
	case err != nil:
		return k.internal("revoke agent key", err)
	}
	if k.Logger != nil {
		k.Logger.Info("agent key revoked", "user", user, "key", id)
	}
	k.Closed(id)
	return nil
}

// Closed forgets key id, so that its next use reads the store, and tells
// Revoked that it no longer works.
func (k *Keys) Closed(id string) {
	k.evict(id)
	if k.Revoked != nil {
		k.Revoked(id)
	}
}

// NewKeyRequest checks what a person asked for and returns it as a store
// request: a name, servers (none means all), tools (none means all) and a
// lifetime (zero means no expiry).
func NewKeyRequest(user, name string, servers, tools []string, ttl time.Duration, now time.Time) (store.NewAgentKey, error) {
	name = wire.Sanitize(name, wire.MaxAgentKeyName+1) // one line, no control characters
	switch {
	case name == "":
		return store.NewAgentKey{}, wire.NewError(wire.CodeBadRequest, "an agent key needs a name")
	case utf8.RuneCountInString(name) > wire.MaxAgentKeyName:
		return store.NewAgentKey{}, wire.NewError(wire.CodeBadRequest, fmt.Sprintf("the name is longer than %d characters", wire.MaxAgentKeyName))
	case ttl < 0:
		return store.NewAgentKey{}, wire.NewError(wire.CodeBadRequest, "the lifetime must be positive")
	case len(tools) > wire.MaxAgentKeyTools:
		return store.NewAgentKey{}, wire.NewError(wire.CodeBadRequest, fmt.Sprintf("at most %d tools may be listed", wire.MaxAgentKeyTools))
	}
	n := store.NewAgentKey{User: user, Name: name, AllServers: len(servers) == 0, Servers: servers}
	for _, t := range tools {
		if t = strings.TrimSpace(t); t != "" {
			n.Tools = append(n.Tools, t)
		}
	}
	if ttl > 0 {
		n.Expires = now.Add(ttl)
	}
	return n, nil
}

// wireKey is a stored key as the dashboard sees it.
func wireKey(r store.AgentKey) wire.AgentKey {
	return wire.AgentKey{
		ID: r.ID, Name: r.Name, AllServers: r.AllServers, Servers: r.Servers, Tools: r.Tools, ForwardSampling: r.ForwardSampling, ToolMode: wire.ToolMode(r.ToolMode),
		Expires: r.Expires, Created: r.Created, LastUsed: r.LastUsed, Revoked: r.Revoked,
	}
}

// internal logs err and returns a wire error that does not repeat it.
func (k *Keys) internal(what string, err error) error {
	if k.Logger != nil {
		k.Logger.Error(what, "err", err)
	}
	return wire.NewError(wire.CodeInternal, "could not "+what+"; see the relay log")
}
