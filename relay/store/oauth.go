package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Where a client registration came from.
const (
	ClientManual  = "manual"  // entered by the user (pre-registered)
	ClientDynamic = "dynamic" // obtained by dynamic client registration
)

// oauthStateRetention is how long a used or expired state is kept, so that a
// late or replayed callback is told "used" or "expired" rather than "unknown".
const oauthStateRetention = 24 * time.Hour

// Sealing contexts: a sealed value opens only in the record it was sealed for.
const (
	sealClientSecret = "oauth_clients.client_secret"
	sealTokens       = "oauth_tokens.secrets"
	sealVerifier     = "oauth_states.verifier"
)

// Why ConsumeState refuses a state.
var (
	ErrStateUnknown = errors.New("unknown authorization state")
	ErrStateUsed    = errors.New("authorization state already used")
	ErrStateExpired = errors.New("authorization state expired")
)

// OAuthClient is a client registration with an authorization server, for
// one user's server. ClientSecret is plain in memory and sealed at rest.
type OAuthClient struct {
	User, Server string
	Source       string // ClientManual or ClientDynamic
	Issuer       string // the authorization server it is registered with; empty for any
	RedirectURI  string // the redirect URI it was registered with
	ClientID     string
	ClientSecret string // empty for a public client
	AuthMethod   string // token_endpoint_auth_method
	CreatedAt    time.Time
}

// OAuthToken is the token a user holds for a server, with what refreshing it
// needs. AccessToken and RefreshToken are plain in memory and sealed at rest.
type OAuthToken struct {
	User, Server  string
	Issuer        string
	TokenEndpoint string
	Resource      string // the resource the token was issued for
	ClientID      string
	ClientSource  string // where the client came from: a Client* source, or the oauth package's own names
	AuthMethod    string
	Scopes        []string
	AccessToken   string
	RefreshToken  string
	TokenType     string
	Expiry        time.Time // zero when the authorization server did not say
	UpdatedAt     time.Time
}

// tokenSecrets is the sealed part of an OAuthToken.
type tokenSecrets struct {
	Access  string `json:"a"`
	Refresh string `json:"r,omitempty"`
	Type    string `json:"t,omitempty"`
}

// OAuthState is a pending authorization: the state nonce sent to the
// authorization server and what the callback needs to finish the flow.
// State is kept only as a hash; Verifier is sealed.
type OAuthState struct {
	State         string
	User, Server  string
	RedirectURI   string
	Issuer        string
	IssRequired   bool // the callback must carry iss (RFC 9207)
	TokenEndpoint string
	Resource      string
	ClientID      string
	ClientSource  string
	AuthMethod    string
	Scopes        []string
	Verifier      string // the PKCE code verifier
	ExpiresAt     time.Time
}

// OAuthStore keeps OAuth registrations, tokens and pending states, sealing
// their secrets. Get one with [Store.OAuth].
type OAuthStore struct {
	store  *Store
	sealer *Sealer
}

// OAuth returns the OAuth tables of s, sealing secrets with sealer.
func (s *Store) OAuth(sealer *Sealer) *OAuthStore {
	return &OAuthStore{store: s, sealer: sealer}
}

// sealContext binds a sealed value to its table column and owner.
func sealContext(column, user, server, extra string) string {
	return column + "\x00" + user + "\x00" + server + "\x00" + extra
}

// PutClient stores c, replacing the registration of the same user, server
// and source.
func (o *OAuthStore) PutClient(ctx context.Context, c OAuthClient) error {
	if c.User == "" || c.Server == "" || c.ClientID == "" || c.Source == "" {
		return fmt.Errorf("put oauth client: user, server, source and client id are required")
	}
	var secret []byte
	if c.ClientSecret != "" {
		secret = o.sealer.Seal([]byte(c.ClientSecret), sealContext(sealClientSecret, c.User, c.Server, c.Source))
	}
	created := c.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	const upsert = `INSERT INTO oauth_clients (user_id, server_id, source, issuer, redirect_uri, client_id, client_secret, auth_method, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id, server_id, source) DO UPDATE SET
			issuer = excluded.issuer, redirect_uri = excluded.redirect_uri, client_id = excluded.client_id,
			client_secret = excluded.client_secret, auth_method = excluded.auth_method, created_at = excluded.created_at`
	if _, err := o.store.db.ExecContext(ctx, upsert, c.User, c.Server, c.Source, c.Issuer, c.RedirectURI, c.ClientID, secret, c.AuthMethod, created.UnixMilli()); err != nil {
		return fmt.Errorf("put oauth client: %w", err)
	}
	return nil
}

// Client returns the registration of user's server from source; ok is false
// when there is none.
func (o *OAuthStore) Client(ctx context.Context, user, server, source string) (c OAuthClient, ok bool, err error) {
	const query = `SELECT issuer, redirect_uri, client_id, client_secret, auth_method, created_at
		FROM oauth_clients WHERE user_id = ? AND server_id = ? AND source = ?`
	var secret []byte
	var created int64
	err = o.store.db.QueryRowContext(ctx, query, user, server, source).Scan(&c.Issuer, &c.RedirectURI, &c.ClientID, &secret, &c.AuthMethod, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return OAuthClient{}, false, nil
	}
	if err != nil {
		return OAuthClient{}, false, fmt.Errorf("read oauth client: %w", err)
	}
	if secret != nil {
		plain, err := o.sealer.Open(secret, sealContext(sealClientSecret, user, server, source))
		if err != nil {
			return OAuthClient{}, false, fmt.Errorf("read oauth client secret: %w", err)
		}
		c.ClientSecret = string(plain)
	}
	c.User, c.Server, c.Source = user, server, source
	c.CreatedAt = time.UnixMilli(created).UTC()
	return c, true, nil
}

// DeleteClient removes the registration of user's server from source, if any.
func (o *OAuthStore) DeleteClient(ctx context.Context, user, server, source string) error {
	if _, err := o.store.db.ExecContext(ctx, `DELETE FROM oauth_clients WHERE user_id = ? AND server_id = ? AND source = ?`, user, server, source); err != nil {
		return fmt.Errorf("delete oauth client: %w", err)
	}
	return nil
}

// PutToken stores t as user's token for the server, replacing any other.
func (o *OAuthStore) PutToken(ctx context.Context, t OAuthToken) error {
	if t.User == "" || t.Server == "" || t.AccessToken == "" {
		return fmt.Errorf("put oauth token: user, server and access token are required")
	}
	plain, err := json.Marshal(tokenSecrets{Access: t.AccessToken, Refresh: t.RefreshToken, Type: t.TokenType})
	if err != nil {
		return fmt.Errorf("put oauth token: %w", err)
	}
	sealed := o.sealer.Seal(plain, sealContext(sealTokens, t.User, t.Server, ""))
	var expires int64
	if !t.Expiry.IsZero() {
		expires = t.Expiry.UnixMilli()
	}
	updated := t.UpdatedAt
	if updated.IsZero() {
		updated = time.Now()
	}
	const upsert = `INSERT INTO oauth_tokens (user_id, server_id, issuer, token_endpoint, resource, client_id, client_source,
			auth_method, scopes, secrets, expires_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id, server_id) DO UPDATE SET
			issuer = excluded.issuer, token_endpoint = excluded.token_endpoint, resource = excluded.resource,
			client_id = excluded.client_id, client_source = excluded.client_source, auth_method = excluded.auth_method,
			scopes = excluded.scopes, secrets = excluded.secrets, expires_at = excluded.expires_at, updated_at = excluded.updated_at`
	_, err = o.store.db.ExecContext(ctx, upsert, t.User, t.Server, t.Issuer, t.TokenEndpoint, t.Resource, t.ClientID, t.ClientSource,
		t.AuthMethod, strings.Join(t.Scopes, " "), sealed, expires, updated.UnixMilli())
	if err != nil {
		return fmt.Errorf("put oauth token: %w", err)
	}
	return nil
}

// Token returns user's token for the server; ok is false when there is none.
func (o *OAuthStore) Token(ctx context.Context, user, server string) (t OAuthToken, ok bool, err error) {
	const query = `SELECT issuer, token_endpoint, resource, client_id, client_source, auth_method, scopes, secrets, expires_at, updated_at
		FROM oauth_tokens WHERE user_id = ? AND server_id = ?`
	var scopes string
	var sealed []byte
	var expires, updated int64
	err = o.store.db.QueryRowContext(ctx, query, user, server).Scan(&t.Issuer, &t.TokenEndpoint, &t.Resource, &t.ClientID, &t.ClientSource,
		&t.AuthMethod, &scopes, &sealed, &expires, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return OAuthToken{}, false, nil
	}
	if err != nil {
		return OAuthToken{}, false, fmt.Errorf("read oauth token: %w", err)
	}
	plain, err := o.sealer.Open(sealed, sealContext(sealTokens, user, server, ""))
	if err != nil {
		return OAuthToken{}, false, fmt.Errorf("read oauth token: %w", err)
	}
	var sec tokenSecrets
	if err := json.Unmarshal(plain, &sec); err != nil {
		return OAuthToken{}, false, fmt.Errorf("read oauth token: malformed secrets")
	}
	t.User, t.Server = user, server
	t.AccessToken, t.RefreshToken, t.TokenType = sec.Access, sec.Refresh, sec.Type
	t.Scopes = strings.Fields(scopes)
	if expires != 0 {
		t.Expiry = time.UnixMilli(expires).UTC()
	}
	t.UpdatedAt = time.UnixMilli(updated).UTC()
	return t, true, nil
}

// DeleteToken removes user's token for the server, if any.
func (o *OAuthStore) DeleteToken(ctx context.Context, user, server string) error {
	if _, err := o.store.db.ExecContext(ctx, `DELETE FROM oauth_tokens WHERE user_id = ? AND server_id = ?`, user, server); err != nil {
		return fmt.Errorf("delete oauth token: %w", err)
	}
	return nil
}

// PutState stores a pending authorization. It also deletes states that
// ended (used or expired) more than a day ago.
func (o *OAuthStore) PutState(ctx context.Context, st OAuthState) error {
	if st.State == "" || st.User == "" || st.Server == "" || st.Verifier == "" {
		return fmt.Errorf("put oauth state: state, user, server and verifier are required")
	}
	hash := hashCode(st.State)
	verifier := o.sealer.Seal([]byte(st.Verifier), sealContext(sealVerifier, st.User, st.Server, string(hash)))
	cutoff := time.Now().Add(-oauthStateRetention).UnixMilli()
	err := o.store.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_states WHERE expires_at < ?`, cutoff); err != nil {
			return fmt.Errorf("prune: %w", err)
		}
		const insert = `INSERT INTO oauth_states (state_hash, user_id, server_id, redirect_uri, issuer, iss_required, token_endpoint,
				resource, client_id, client_source, auth_method, scopes, verifier, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
		_, err := tx.ExecContext(ctx, insert, hash, st.User, st.Server, st.RedirectURI, st.Issuer, st.IssRequired, st.TokenEndpoint, st.Resource,
			st.ClientID, st.ClientSource, st.AuthMethod, strings.Join(st.Scopes, " "), verifier, st.ExpiresAt.UnixMilli())
		if err != nil {
			return fmt.Errorf("insert: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("put oauth state: %w", err)
	}
	return nil
}

// ConsumeState looks up a pending authorization by its state, checks it and
// marks it used, all in one transaction: a state is consumed at most once
// even under concurrent callbacks. It returns ErrStateUnknown, ErrStateUsed
// or ErrStateExpired (from ExpiresAt on) without consuming anything; check
// then sees the record, and when it returns an error the state is left
// unconsumed and that error is returned.
func (o *OAuthStore) ConsumeState(ctx context.Context, state string, now time.Time, check func(OAuthState) error) (OAuthState, error) {
	hash := hashCode(state)
	var st OAuthState
	err := o.store.inTx(ctx, func(tx *sql.Tx) error {
		const query = `SELECT user_id, server_id, redirect_uri, issuer, iss_required, token_endpoint, resource, client_id,
				client_source, auth_method, scopes, verifier, expires_at, used_at
			FROM oauth_states WHERE state_hash = ?`
		var scopes string
		var verifier []byte
		var expires int64
		var used sql.NullInt64
		err := tx.QueryRowContext(ctx, query, hash).Scan(&st.User, &st.Server, &st.RedirectURI, &st.Issuer, &st.IssRequired, &st.TokenEndpoint,
			&st.Resource, &st.ClientID, &st.ClientSource, &st.AuthMethod, &scopes, &verifier, &expires, &used)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return ErrStateUnknown
		case err != nil:
			return fmt.Errorf("read: %w", err)
		case used.Valid:
			return ErrStateUsed
		case now.UnixMilli() >= expires:
			return ErrStateExpired
		}
		plain, err := o.sealer.Open(verifier, sealContext(sealVerifier, st.User, st.Server, string(hash)))
		if err != nil {
			return fmt.Errorf("read verifier: %w", err)
		}
		st.State, st.Verifier, st.Scopes = state, string(plain), strings.Fields(scopes)
		st.ExpiresAt = time.UnixMilli(expires).UTC()
		if err := check(st); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_states SET used_at = ? WHERE state_hash = ?`, now.UnixMilli(), hash); err != nil {
			return fmt.Errorf("mark used: %w", err)
		}
		return nil
	})
	if err != nil {
		return OAuthState{}, fmt.Errorf("consume oauth state: %w", err)
	}
	return st, nil
}

// Forget deletes every registration, token, pending state and machine
// credential of user's server.
func (o *OAuthStore) Forget(ctx context.Context, user, server string) error {
	err := o.store.inTx(ctx, func(tx *sql.Tx) error { return forgetOAuthTx(ctx, tx, user, server) })
	if err != nil {
		return fmt.Errorf("forget oauth of %s: %w", server, err)
	}
	return nil
}

// forgetOAuthTx deletes, in tx, what the relay holds to authorize to user's
// server: registrations, tokens, pending states and the operator's machine
// credentials (which must never reach another origin).
func forgetOAuthTx(ctx context.Context, tx *sql.Tx, user, server string) error {
	for _, table := range []string{"oauth_clients", "oauth_tokens", "oauth_states", "oauth_machine_clients"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE user_id = ? AND server_id = ?`, user, server); err != nil {
			return fmt.Errorf("%s: %w", table, err)
		}
	}
	return nil
}

// OAuthStateUser returns the user an authorization's state was made for,
// without consuming it (a replica routes the callback to the user's owner,
// which consumes it); ErrStateUnknown when there is no such state.
func (s *Store) OAuthStateUser(ctx context.Context, state string) (string, error) {
	var user string
	err := s.db.QueryRowContext(ctx, `SELECT user_id FROM oauth_states WHERE state_hash = ?`, hashCode(state)).Scan(&user)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrStateUnknown
	}
	if err != nil {
		return "", fmt.Errorf("read oauth state: %w", err)
	}
	return user, nil
}
