// Package signintest runs a real OpenID Connect provider on loopback for
// tests of sign-in: the example provider of zitadel/oidc (discovery,
// authorization code with PKCE, signed ID tokens, JWKS, refresh tokens,
// end session) with its username and password page, for the users a test
// gives, whose ID tokens carry their email and groups.
package signintest

import (
	"context"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// GroupsScope is the scope, and the ID token claim, of a user's groups.
const GroupsScope = "groups"

// User is a person known to the provider.
type User struct {
	ID, Username, Password string
	Email                  string
	EmailVerified          bool
	Groups                 []string
}

// Provider is a running identity provider.
type Provider struct {
	// Issuer is its issuer URL (http on 127.0.0.1).
	Issuer string
	// ClientID and ClientSecret are the relay's confidential client,
	// registered for the redirect URI given to Start.
	ClientID, ClientSecret string
}

// Start runs a provider until t ends, knowing users, with one client
// allowed to redirect to redirectURI and, after sign-out, to postLogout.
func Start(t testing.TB, redirectURI, postLogout string, users ...User) *Provider {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + ln.Addr().String()
	p := &Provider{Issuer: issuer, ClientID: "switchboard", ClientSecret: "relay-secret"}
	client := storage.WebClient(p.ClientID, p.ClientSecret, redirectURI)
	st := &userinfoStorage{
		Storage: storage.NewStorageWithClients(userStore(users), map[string]*storage.Client{p.ClientID: client}),
		users:   users,
		logout:  postLogout,
	}
	srv := &http.Server{Handler: exampleop.SetupServer(issuer, st, nil, false)}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	return p
}

// userStore is the provider's users.
type userStore []User

func (us userStore) find(match func(User) bool) *storage.User {
	i := slices.IndexFunc(us, match)
	if i < 0 {
		return nil
	}
	u := us[i]
	return &storage.User{ID: u.ID, Username: u.Username, Password: u.Password, FirstName: u.Username, LastName: "Test",
		Email: u.Email, EmailVerified: u.EmailVerified}
}

func (us userStore) GetUserByID(id string) *storage.User {
	return us.find(func(u User) bool { return u.ID == id })
}

func (us userStore) GetUserByUsername(name string) *storage.User {
	return us.find(func(u User) bool { return u.Username == name })
}

func (userStore) ExampleClientID() string { return storage.ServiceUserID }

// userinfoStorage is the example storage whose ID tokens carry the user's
// email and profile (not only the userinfo endpoint), and groups.
type userinfoStorage struct {
	*storage.Storage
	users  []User
	logout string
}

// GetClientByClientID returns the client, asserting userinfo claims in
// its ID tokens and allowed to come back to logout after sign-out.
func (s *userinfoStorage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := s.Storage.GetClientByClientID(ctx, id)
	if err != nil {
		return nil, err
	}
	return assertingClient{Client: c, logout: s.logout}, nil
}

// SetUserinfoFromScopes adds the groups claim to the example's claims.
func (s *userinfoStorage) SetUserinfoFromScopes(ctx context.Context, ui *oidc.UserInfo, userID, clientID string, scopes []string) error {
	if err := s.Storage.SetUserinfoFromRequest(ctx, ui, idRequest{subject: userID, client: clientID}, scopes); err != nil {
		return err
	}
	if slices.Contains(scopes, GroupsScope) {
		for _, u := range s.users {
			if u.ID == userID {
				ui.AppendClaims(GroupsScope, u.Groups)
			}
		}
	}
	return nil
}

// SetUserinfoFromRequest is left to SetUserinfoFromScopes, which the
// provider calls first.
func (s *userinfoStorage) SetUserinfoFromRequest(context.Context, *oidc.UserInfo, op.IDTokenRequest, []string) error {
	return nil
}

// idRequest names a subject and client for the example storage.
type idRequest struct{ subject, client string }

func (r idRequest) GetAMR() []string           { return nil }
func (r idRequest) GetAudience() []string      { return []string{r.client} }
func (r idRequest) GetAuthTime() (t time.Time) { return t }
func (r idRequest) GetClientID() string        { return r.client }
func (r idRequest) GetScopes() []string        { return nil }
func (r idRequest) GetSubject() string         { return r.subject }

// assertingClient puts userinfo claims in ID tokens.
type assertingClient struct {
	op.Client
	logout string
}

func (assertingClient) IDTokenUserinfoClaimsAssertion() bool { return true }

// IsScopeAllowed lets the client ask for groups.
func (assertingClient) IsScopeAllowed(scope string) bool { return scope == GroupsScope }

func (c assertingClient) PostLogoutRedirectURIs() []string { return []string{c.logout} }
