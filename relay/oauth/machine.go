package oauth

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/urlsafe"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Machine access: for a server configured with machine credentials
// (store.OAuthMachine), the relay obtains tokens itself, without a person:
// with the OAuth client credentials grant, or with cross-app access (an
// identity assertion from the enterprise identity provider, see
// crossapp.go). Such a server never asks a person to authorize; a grant
// that fails is shown in the status and tried again on the connection's
// next attempt.

// Grants and the token source of machine access.
const (
	grantClientCredentials = "client_credentials"
	grantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	// sourceMachine marks a token obtained with machine credentials.
	sourceMachine = "machine"
)

// machineMethods are the token endpoint authentication methods of machine
// credentials.
var machineMethods = []string{methodBasic, methodPost, methodPrivateKeyJWT}

// CheckMachine checks machine credentials before they are stored: a known
// grant and method, a client id, and a secret that suits the method (a PEM
// private key with an algorithm that suits it, for private_key_jwt). Its
// errors never hold the secret.
func CheckMachine(mc store.OAuthMachine) error {
	switch {
	case mc.Grant != store.MachineClientCredentials && mc.Grant != store.MachineCrossApp:
		return fmt.Errorf("unknown grant %q (use %s or %s)", wire.Sanitize(mc.Grant, maxErrorCodeRunes), store.MachineClientCredentials, store.MachineCrossApp)
	case mc.ClientID == "" || len(mc.ClientID) > maxSecretLen || strings.ContainsFunc(mc.ClientID, isControl) || strings.TrimSpace(mc.ClientID) != mc.ClientID:
		return fmt.Errorf("a client id of 1 to %d bytes without spaces at its ends or control characters is required", maxSecretLen)
	case !slices.Contains(machineMethods, mc.AuthMethod):
		return fmt.Errorf("unknown client authentication method %q (use one of %v)", wire.Sanitize(mc.AuthMethod, maxErrorCodeRunes), machineMethods)
	case mc.Secret == "":
		return errors.New("a client secret or a private key is required")
	case mc.AuthMethod == methodPrivateKeyJWT:
		_, err := newAssertionSigner(mc.Secret, mc.SigningAlg)
		return err
	case len(mc.Secret) > maxSecretLen || strings.ContainsFunc(mc.Secret, isControl):
		return fmt.Errorf("a client secret is at most %d bytes, without control characters", maxSecretLen)
	case mc.SigningAlg != "":
		return errors.New("a signing algorithm goes only with private_key_jwt")
	}
	return nil
}

// machine returns the machine access of c's server, nil when it has none.
// It is read anew each time, so that credentials changed by the operator
// apply at the next grant.
func (c *Client) machine(ctx context.Context) (*store.OAuthMachine, error) {
	mc, ok, err := c.m.store.Machine(ctx, c.user, c.server)
	if err != nil || !ok {
		return nil, err
	}
	return &mc, nil
}

// machineInstead stops waiting for a person when c's server has machine
// credentials now (given since it asked for one): the connection then
// reconnects and obtains its token with them. It reports whether it did.
func (c *Client) machineInstead(ctx context.Context) bool {
	c.mu.Lock()
	required := c.required
	c.mu.Unlock()
	if !required {
		return false
	}
	if mc, err := c.machine(ctx); mc == nil || err != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.required, c.stepUp, c.lastErr = false, nil, ""
	c.notifyLocked()
	return true
}

// Recheck applies machine access given while the relay runs (by
// "switchboard servers machine-access" on the same data directory): every
// server waiting for a person to authorize that has machine credentials now
// stops waiting and connects with them.
func (m *Manager) Recheck(ctx context.Context) {
	m.mu.Lock()
	clients := slices.Collect(maps.Values(m.clients))
	m.mu.Unlock()
	for _, c := range clients {
		c.machineInstead(ctx)
	}
}

// obtainMachine obtains a token with mc and makes it current. The caller
// holds refreshMu. A cancelled request does not cancel the grant. A failure
// is shown and holds off the next grant for renewRetry.
func (c *Client) obtainMachine(ctx context.Context, mc *store.OAuthMachine) (string, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), requestTimeout)
	defer cancel()
	c.mu.Lock()
	rm := c.challenge.resourceMetadata
	c.mu.Unlock()
	tok, err := c.m.machineToken(ctx, c, mc, rm)
	if err != nil {
		why := wire.Sanitize("machine access failed: "+err.Error(), wire.MaxErrorMessage)
		c.m.log.Warn("oauth machine grant failed", "user", c.user, "server", c.server, "grant", mc.Grant, "error", why)
		c.mu.Lock()
		c.renewAfter, c.renewErr, c.lastErr = c.m.now().Add(renewRetry), why, why
		c.notifyLocked()
		c.mu.Unlock()
		return "", &userError{msg: why, err: err}
	}
	switch err := c.keep(ctx, tok); {
	case errors.Is(err, errRemoved):
		return "", err
	case err != nil:
		c.m.log.Error("store oauth token", "user", c.user, "server", c.server, "err", err)
		c.setToken(tok)
	}
	c.m.log.Info("oauth machine token obtained", "user", c.user, "server", c.server, "grant", mc.Grant, "issuer", tok.Issuer)
	return tok.AccessToken, nil
}

// renewMachine renews cur, a token obtained with machine credentials that
// expired or lacks scope: a new grant, since such tokens have no refresh
// token. usable says whether cur may be used meanwhile. The caller holds
// refreshMu.
func (c *Client) renewMachine(ctx context.Context, cur *store.OAuthToken, usable bool) (string, error) {
	c.mu.Lock()
	retryAt, why := c.renewAfter, c.renewErr
	c.mu.Unlock()
	if c.m.now().Before(retryAt) {
		if usable {
			return cur.AccessToken, nil
		}
		return "", &userError{msg: why}
	}
	mc, err := c.machine(ctx)
	switch {
	case err != nil:
		c.m.log.Error("read machine access", "user", c.user, "server", c.server, "err", err)
		if usable {
			return cur.AccessToken, nil
		}
		return "", &userError{msg: "could not read the machine credentials", err: err}
	case mc == nil:
		if usable {
			return cur.AccessToken, nil
		}
		c.discard(ctx, "the machine credentials were removed", false)
		return "", nil
	}
	fresh, err := c.obtainMachine(ctx, mc)
	if err != nil {
		if usable {
			return cur.AccessToken, nil
		}
		return "", err
	}
	return fresh, nil
}

// machineUnauthorized handles a 401 for a server with machine credentials
// (mc, or readErr when they could not be read): a new grant, unless the
// server refused a token just obtained (canRefresh false), which is dropped.
// No person is asked. The caller holds refreshMu.
func (c *Client) machineUnauthorized(ctx context.Context, mc *store.OAuthMachine, readErr error, canRefresh bool) bool {
	if readErr != nil {
		c.m.log.Error("read machine access", "user", c.user, "server", c.server, "err", readErr)
		c.fail("could not read the machine credentials")
		return false
	}
	if !canRefresh {
		c.discard(ctx, "the server refused the token obtained with the machine credentials", false)
		return false
	}
	c.mu.Lock()
	retryAt := c.renewAfter
	c.mu.Unlock()
	if c.m.now().Before(retryAt) {
		return false
	}
	_, err := c.obtainMachine(ctx, mc)
	return err == nil
}

// machineToken obtains a token for c's server with mc: discovery, then the
// grant at the authorization server's token endpoint.
func (m *Manager) machineToken(ctx context.Context, c *Client, mc *store.OAuthMachine, metadataURL string) (*store.OAuthToken, error) {
	d, err := m.discoverServers(ctx, c.url, metadataURL)
	if err != nil {
		return nil, err
	}
	asm := d.asm
	if _, err := urlsafe.CheckOpenable(asm.TokenEndpoint); err != nil {
		return nil, &userError{msg: "the token endpoint cannot be used: " + err.Error()}
	}
	id, err := machineIdentity(mc, asm)
	if err != nil {
		return nil, err
	}
	scopes := strings.Fields(mc.Scope)
	c.mu.Lock()
	if len(scopes) == 0 {
		scopes = c.wantedScopesLocked(d)
	} else {
		scopes = union(scopes, c.stepUp)
	}
	c.mu.Unlock()
	form := url.Values{"resource": {d.resource}}
	switch mc.Grant {
	case store.MachineClientCredentials:
		if !grantSupported(asm, grantClientCredentials) {
			return nil, &userError{msg: "the authorization server " + asm.Issuer + " does not offer the client credentials grant"}
		}
		form.Set("grant_type", grantClientCredentials)
	case store.MachineCrossApp:
		if !grantSupported(asm, grantJWTBearer) {
			return nil, &userError{msg: "the authorization server " + asm.Issuer + " does not offer the JWT bearer grant of cross-app access"}
		}
		jag, err := m.identityAssertion(ctx, c.user, asm.Issuer, d.resource, scopes)
		if err != nil {
			return nil, err
		}
		form.Set("grant_type", grantJWTBearer)
		form.Set("assertion", jag)
	default:
		return nil, &userError{msg: fmt.Sprintf("unknown machine grant %q", wire.Sanitize(mc.Grant, maxErrorCodeRunes))}
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	ans, err := m.requestToken(ctx, asm.TokenEndpoint, form, id)
	if err != nil {
		return nil, err
	}
	tok := &store.OAuthToken{
		User: c.user, Server: c.server, Issuer: asm.Issuer, TokenEndpoint: asm.TokenEndpoint, Resource: d.resource,
		ClientID: mc.ClientID, ClientSource: sourceMachine, AuthMethod: id.method, Scopes: scopes,
	}
	m.apply(tok, ans)
	tok.RefreshToken = "" // a machine token is renewed by a new grant
	return tok, nil
}

// machineIdentity is how the relay authenticates with mc at asm's token
// endpoint: mc's method, which asm must support when it lists methods (and,
// for private_key_jwt, the algorithm).
func machineIdentity(mc *store.OAuthMachine, asm *oauthex.AuthServerMeta) (*identity, error) {
	if err := CheckMachine(*mc); err != nil {
		return nil, &userError{msg: "the machine credentials: " + err.Error()}
	}
	if supported := asm.TokenEndpointAuthMethodsSupported; len(supported) > 0 && !slices.Contains(supported, mc.AuthMethod) {
		return nil, &userError{msg: fmt.Sprintf("the authorization server %s does not accept %s client authentication (it lists %s)",
			asm.Issuer, mc.AuthMethod, wire.Sanitize(strings.Join(supported, ", "), maxDescriptionRunes))}
	}
	id := &identity{source: sourceMachine, clientID: mc.ClientID, method: mc.AuthMethod, issuer: asm.Issuer}
	if mc.AuthMethod != methodPrivateKeyJWT {
		id.secret = mc.Secret
		return id, nil
	}
	signer, err := newAssertionSigner(mc.Secret, mc.SigningAlg)
	if err != nil {
		return nil, &userError{msg: "the machine credentials: " + err.Error()}
	}
	if algs := asm.TokenEndpointAuthSigningAlgValuesSupported; len(algs) > 0 && !slices.Contains(algs, signer.alg()) {
		return nil, &userError{msg: fmt.Sprintf("the authorization server %s does not accept client assertions signed with %s (it lists %s)",
			asm.Issuer, signer.alg(), wire.Sanitize(strings.Join(algs, ", "), maxDescriptionRunes))}
	}
	id.signer = signer
	return id, nil
}

// grantSupported reports whether asm offers grant: it lists it, or lists
// no grants at all.
func grantSupported(asm *oauthex.AuthServerMeta, grant string) bool {
	return len(asm.GrantTypesSupported) == 0 || slices.Contains(asm.GrantTypesSupported, grant)
}
