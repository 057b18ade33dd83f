package agentauth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"time"
)

// code is an issued authorization code, kept by its hash until spent or
// expired.
type code struct {
	User       string
	Request    *request
	AllServers bool
	Servers    []string
	ToolMode   string
	Expires    time.Time
	Spent      bool
	GrantID    string // the grant it created, revoked if the code comes again
	// Reused is set when the code came again before its grant existed:
	// the grant is revoked as soon as it is made.
	Reused bool
}

// issueCode returns a fresh code for user's approval of req.
func (s *Server) issueCode(user string, req *request, all bool, servers []string, mode string) string {
	c := randomID()
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.cfg.Now()
	for h, old := range s.codes {
		if !now.Before(old.Expires) {
			delete(s.codes, h)
		}
	}
	s.codes[codeHash(c)] = &code{User: user, Request: req, AllServers: all, Servers: servers, ToolMode: mode, Expires: now.Add(s.cfg.CodeTTL)}
	return c
}

// spendCode marks the code c spent and returns it; a code spent before is
// returned with reused true, and the caller revokes what it granted.
func (s *Server) spendCode(c string) (cd *code, reused bool, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cd, ok = s.codes[codeHash(c)]
	switch {
	case !ok || !s.cfg.Now().Before(cd.Expires):
		return nil, false, false
	case cd.Spent:
		cd.Reused = true
		return cd, true, true
	}
	cd.Spent = true
	return cd, false, true
}

// codeHash is the key of code c.
func codeHash(c string) string {
	h := sha256.Sum256([]byte(c))
	return string(h[:])
}

// verifierMatches checks a PKCE code verifier against an S256 challenge.
func verifierMatches(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	h := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(h[:])
	return subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) == 1
}
