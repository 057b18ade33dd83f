package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/signin"
)

// oidcSecretEnv holds the client secret at the identity provider when no
// file is given; a secret is never a flag's value, which others may read.
const oidcSecretEnv = "SWITCHBOARD_OIDC_CLIENT_SECRET"

// signInFlags are the flags of sign-in with an OpenID Connect provider.
type signInFlags struct {
	issuer, clientID, secretFile *string
	domains, groups, groupsClaim *string
}

func addSignInFlags(fs *flagSet) signInFlags {
	return signInFlags{
		issuer:      fs.String("oidc-issuer", "", "issuer URL of the team's OpenID Connect provider: people sign in with it (the login page offers it), and it is the identity provider of cross-app access"),
		clientID:    fs.String("oidc-client-id", "", "the relay's client id at the OpenID Connect provider; its redirect URI is the public URL + "+signin.CallbackPath),
		secretFile:  fs.String("oidc-client-secret-file", "", "file holding the relay's client secret at the OpenID Connect provider (default $"+oidcSecretEnv+"; none for a public client)"),
		domains:     fs.String("oidc-allowed-domains", "", "comma-separated email domains whose people may sign in (a verified email is required); empty for any"),
		groups:      fs.String("oidc-allowed-groups", "", "comma-separated groups whose members may sign in (read from --oidc-groups-claim); empty for any"),
		groupsClaim: fs.String("oidc-groups-claim", signin.DefaultGroupsClaim, "the ID token claim (and scope) that lists a person's groups"),
	}
}

// settings returns sign-in's settings, nil when --oidc-issuer is not set.
func (f signInFlags) settings() (*signin.Settings, error) {
	if *f.issuer == "" {
		if *f.clientID != "" || *f.domains != "" || *f.groups != "" {
			return nil, errors.New("--oidc-client-id, --oidc-allowed-domains and --oidc-allowed-groups need --oidc-issuer")
		}
		return nil, nil
	}
	if *f.clientID == "" {
		return nil, errors.New("--oidc-issuer needs --oidc-client-id")
	}
	secret := strings.TrimSpace(os.Getenv(oidcSecretEnv))
	if *f.secretFile != "" {
		raw, err := os.ReadFile(*f.secretFile)
		if err != nil {
			return nil, fmt.Errorf("--oidc-client-secret-file: %w", err)
		}
		if secret = strings.TrimSpace(string(raw)); secret == "" {
			return nil, fmt.Errorf("--oidc-client-secret-file %s is empty", *f.secretFile)
		}
	}
	return &signin.Settings{
		Issuer:         *f.issuer,
		ClientID:       *f.clientID,
		ClientSecret:   secret,
		AllowedDomains: splitList(*f.domains),
		AllowedGroups:  splitList(*f.groups),
		GroupsClaim:    *f.groupsClaim,
	}, nil
}
