package service

import (
	"context"
	"net/http"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/signin"
)

// initSignIn discovers the identity provider of Config.SignIn, offers it on
// the login page and makes it the source of users' ID tokens for cross-app
// access. Without Config.SignIn it does nothing.
func (s *Service) initSignIn(ctx context.Context, verifier *authn.Verifier) error {
	cfg := s.cfg
	if cfg.SignIn == nil {
		return nil
	}
	p, err := signin.New(ctx, signin.Config{
		Settings:     *cfg.SignIn,
		PublicURL:    cfg.PublicURL,
		Tokens:       s.store.IdentityTokens(s.store.Sealer()),
		Sessions:     relaySessions{login: s.login, verifier: verifier},
		SecureCookie: publicHTTPS(cfg.PublicURL),
		Logger:       cfg.Logger,
	})
	if err != nil {
		return err
	}
	s.signin = p
	s.login.Provider = &authn.ProviderLink{Name: p.Name(), URL: signin.StartPath}
	return nil
}

// crossApp is the identity provider of cross-app access: the sign-in
// provider, nil without one.
func (s *Service) crossApp() *oauth.CrossApp {
	if s.signin == nil {
		return nil
	}
	return &oauth.CrossApp{
		TokenEndpoint: s.signin.TokenEndpoint(),
		ClientID:      s.cfg.SignIn.ClientID,
		ClientSecret:  s.cfg.SignIn.ClientSecret,
		IDToken:       s.signin.IDToken,
	}
}

// relaySessions are the relay's own sessions, as sign-in starts and ends them.
type relaySessions struct {
	login    *authn.Login
	verifier *authn.Verifier
}

func (rs relaySessions) Start(w http.ResponseWriter, r *http.Request, user string) error {
	return rs.login.Start(w, r, user)
}

func (rs relaySessions) End(w http.ResponseWriter, r *http.Request) string {
	return rs.login.End(w, r, rs.verifier)
}

// logout ends the browser's session, when the request comes from the
// relay's own pages: the browser says so (Sec-Fetch-Site: same-origin; the
// dashboard sends no referrer, so its form's Origin is "null"), or its
// Origin is one of origins. It ends the session at the sign-in provider too when there is
// one, else back to the dashboard, which then says it is signed out.
func (s *Service) logout(verifier *authn.Verifier, origins *authn.OriginPolicy) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Sec-Fetch-Site") != "same-origin" && !origins.Allowed(r) {
			http.Error(w, "sign out from the relay's own pages", http.StatusForbidden)
			return
		}
		if s.signin != nil {
			s.signin.Logout(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		s.login.End(w, r, verifier)
		http.Redirect(w, r, "/", http.StatusSeeOther)
	}
}
