package conformance

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// configureMachine registers the run's server in st and configures it for
// machine access with grant and the context's credentials, as an operator
// does with "switchboard servers add --client-id ...": a private key signs
// client assertions (private_key_jwt), a secret goes in Basic
// authentication.
func configureMachine(ctx context.Context, st *store.Store, o *store.OAuthStore, cfg Config, grant, serverURL string) error {
	c := cfg.Context
	mc := store.OAuthMachine{User: user, Server: serverID, Grant: grant, ClientID: c.ClientID}
	switch {
	case c.PrivateKeyPEM != "":
		mc.AuthMethod, mc.Secret, mc.SigningAlg = "private_key_jwt", c.PrivateKeyPEM, c.SigningAlgorithm
	case c.ClientSecret != "":
		mc.AuthMethod, mc.Secret = "client_secret_basic", c.ClientSecret
	default:
		return errors.New("machine access: the context holds neither a client secret nor a private key")
	}
	if err := oauth.CheckMachine(mc); err != nil {
		return fmt.Errorf("machine access: %w", err)
	}
	srv := store.Server{User: user, ID: serverID, Name: cfg.Scenario, URL: serverURL, Transport: string(wire.TransportStreamable)}
	if err := st.PutServer(ctx, srv); err != nil {
		return err
	}
	return o.PutMachine(ctx, mc)
}

// crossApp is the identity provider of the context, the user's ID token
// being the one the suite issued.
func crossApp(c Context) *oauth.CrossApp {
	return &oauth.CrossApp{
		TokenEndpoint: c.IdPTokenEndpoint,
		ClientID:      c.IdPClientID,
		IDToken: func(context.Context, string) (string, error) {
			if c.IdPIDToken == "" {
				return "", errors.New("the context holds no ID token")
			}
			return c.IdPIDToken, nil
		},
	}
}
