package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/store"
)

// maxCredentialFileBytes bounds a client secret or private key file.
const maxCredentialFileBytes = 64 << 10

// serversMachine is "switchboard servers machine-access": it configures a
// server for machine access (the OAuth client credentials grant), so that
// the relay obtains its tokens itself instead of asking a person. The
// secret or key is read from a file, never from the command line, and
// sealed with the relay's key.
func serversMachine() *command {
	c := newCommand("servers machine-access")
	id := c.fs.String("id", "", "id of the server (required; see servers list)")
	clientID := c.fs.String("client-id", "", "the relay's client id at the server's authorization server")
	secretFile := c.fs.String("client-secret-file", "", "file holding the client secret (client_secret_basic, or --auth-method client_secret_post)")
	keyFile := c.fs.String("private-key-file", "", "PEM file holding the private key that signs client assertions (private_key_jwt)")
	alg := c.fs.String("signing-alg", "", "JWS algorithm of private_key_jwt (default: the key's, ES256 for P-256, RS256 for RSA)")
	method := c.fs.String("auth-method", "", "client_secret_basic (default with a secret) or client_secret_post")
	scope := c.fs.String("scope", "", "space-separated scopes to ask for (default: those the server asks for)")
	crossApp := c.fs.Bool("cross-app", false, "cross-app access: the relay presents the user's identity assertion from the sign-in provider (serve --oidc-issuer) with these client credentials (JWT bearer grant)")
	remove := c.fs.Bool("clear", false, "remove the server's machine access: a person authorizes again")
	c.run = func(ctx context.Context, st *store.Store, out io.Writer) error {
		if c.fs.NArg() > 0 {
			return fmt.Errorf("unexpected arguments: %v", c.fs.Args())
		}
		if *id == "" {
			return errors.New("--id is required")
		}
		regs, err := st.Servers(ctx, *c.user)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(regs, func(r store.Server) bool { return r.ID == *id }) {
			return fmt.Errorf("%s has no server %q (see servers list)", *c.user, *id)
		}
		o := st.OAuth(st.Sealer())
		if *remove {
			if err := o.DeleteMachine(ctx, *c.user, *id); err != nil {
				return err
			}
			fmt.Fprintf(out, "machine access of %s removed\n", *id)
			return nil
		}
		mc := store.OAuthMachine{User: *c.user, Server: *id, Grant: store.MachineClientCredentials, ClientID: *clientID,
			AuthMethod: *method, SigningAlg: *alg, Scope: strings.Join(strings.Fields(*scope), " ")}
		if *crossApp {
			mc.Grant = store.MachineCrossApp
		}
		switch {
		case (*secretFile == "") == (*keyFile == ""):
			return errors.New("give one of --client-secret-file and --private-key-file")
		case *keyFile != "":
			if mc.AuthMethod != "" && mc.AuthMethod != "private_key_jwt" {
				return errors.New("--private-key-file goes with private_key_jwt only")
			}
			mc.AuthMethod = "private_key_jwt"
			mc.Secret, err = readCredential(*keyFile, false)
		default:
			if mc.AuthMethod == "" {
				mc.AuthMethod = "client_secret_basic"
			}
			mc.Secret, err = readCredential(*secretFile, true)
		}
		if err != nil {
			return err
		}
		if err := oauth.CheckMachine(mc); err != nil {
			return err
		}
		if err := o.PutMachine(ctx, mc); err != nil {
			return err
		}
		fmt.Fprintf(out, "machine access of %s: client %s, %s, %s\n", *id, mc.ClientID, mc.AuthMethod, mc.Grant)
		return nil
	}
	return c
}

// readCredential reads a secret or key file; trim drops the line end an
// editor leaves after a secret. Its errors name the file, never its content.
func readCredential(path string, trim bool) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxCredentialFileBytes+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("read %s: %w", path, err)
	case len(raw) > maxCredentialFileBytes:
		return "", fmt.Errorf("%s is larger than %d bytes", path, maxCredentialFileBytes)
	}
	s := string(raw)
	if trim {
		s = strings.TrimRight(s, "\r\n")
	}
	return s, nil
}
