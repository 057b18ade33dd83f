package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Grants of machine access.
const (
	// MachineClientCredentials is the OAuth client credentials grant.
	MachineClientCredentials = "client_credentials"
	// MachineCrossApp is cross-app access: an identity assertion from the
	// enterprise identity provider traded for a token (ID-JAG, then the
	// JWT bearer grant).
	MachineCrossApp = "cross_app"
)

// sealMachineSecret is the sealing context of oauth_machine_clients.secret.
const sealMachineSecret = "oauth_machine_clients.secret"

// OAuthMachine is how the relay reaches one user's server as a machine
// client, without a person. Secret is a client secret, or a PEM private key
// for private_key_jwt; it is plain in memory and sealed at rest.
type OAuthMachine struct {
	User, Server string
	Grant        string // MachineClientCredentials or MachineCrossApp
	ClientID     string
	AuthMethod   string // client_secret_basic, client_secret_post or private_key_jwt
	Secret       string
	SigningAlg   string // the JWS algorithm of private_key_jwt; empty: from the key
	Scope        string // space-separated; empty: what the server asks for
	CreatedAt    time.Time
}

// PutMachine stores m as the machine access of its user's server, replacing
// any. The server must exist; removing it removes m.
func (o *OAuthStore) PutMachine(ctx context.Context, m OAuthMachine) error {
	if m.User == "" || m.Server == "" || m.ClientID == "" || m.Grant == "" || m.AuthMethod == "" || m.Secret == "" {
		return errors.New("put machine access: user, server, grant, client id, method and secret are required")
	}
	sealed := o.sealer.Seal([]byte(m.Secret), sealContext(sealMachineSecret, m.User, m.Server, m.ClientID))
	created := m.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	const upsert = `INSERT INTO oauth_machine_clients (user_id, server_id, grant_type, client_id, auth_method, secret, signing_alg, scope, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id, server_id) DO UPDATE SET
			grant_type = excluded.grant_type, client_id = excluded.client_id, auth_method = excluded.auth_method,
			secret = excluded.secret, signing_alg = excluded.signing_alg, scope = excluded.scope, created_at = excluded.created_at`
	_, err := o.store.db.ExecContext(ctx, upsert, m.User, m.Server, m.Grant, m.ClientID, m.AuthMethod, sealed, m.SigningAlg, m.Scope, created.UnixMilli())
	if err != nil {
		return fmt.Errorf("put machine access: %w", err)
	}
	return nil
}

// Machine returns the machine access of user's server; ok is false when
// there is none.
func (o *OAuthStore) Machine(ctx context.Context, user, server string) (m OAuthMachine, ok bool, err error) {
	const query = `SELECT grant_type, client_id, auth_method, secret, signing_alg, scope, created_at
		FROM oauth_machine_clients WHERE user_id = ? AND server_id = ?`
	var sealed []byte
	var created int64
	err = o.store.db.QueryRowContext(ctx, query, user, server).Scan(&m.Grant, &m.ClientID, &m.AuthMethod, &sealed, &m.SigningAlg, &m.Scope, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return OAuthMachine{}, false, nil
	}
	if err != nil {
		return OAuthMachine{}, false, fmt.Errorf("read machine access: %w", err)
	}
	plain, err := o.sealer.Open(sealed, sealContext(sealMachineSecret, user, server, m.ClientID))
	if err != nil {
		return OAuthMachine{}, false, fmt.Errorf("read machine access secret: %w", err)
	}
	m.User, m.Server, m.Secret = user, server, string(plain)
	m.CreatedAt = time.UnixMilli(created).UTC()
	return m, true, nil
}

// DeleteMachine removes the machine access of user's server, if any.
func (o *OAuthStore) DeleteMachine(ctx context.Context, user, server string) error {
	if _, err := o.store.db.ExecContext(ctx, `DELETE FROM oauth_machine_clients WHERE user_id = ? AND server_id = ?`, user, server); err != nil {
		return fmt.Errorf("delete machine access: %w", err)
	}
	return nil
}
