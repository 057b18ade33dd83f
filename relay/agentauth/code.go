package agentauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// approval is what the person approved of a request: the servers and the
// tool mode of the grant its code makes.
type approval struct {
	AllServers bool
	Servers    []string
	ToolMode   string
}

// issueCode records user's approval of req and returns its code, which
// the store keeps (as a hash) until it is spent or expires; any relay on
// the store spends it. A request answered meanwhile is store.ErrNotFound.
func (s *Server) issueCode(ctx context.Context, user string, req *request, ap approval) (string, error) {
	approved := *req
	approved.Approved = &ap
	body, err := json.Marshal(&approved)
	if err != nil {
		return "", fmt.Errorf("encode the approval: %w", err)
	}
	c := randomID()
	now := s.cfg.Now()
	if err := s.cfg.Store.ApproveAgentAuthorization(ctx, req.ID, user, c, body, now, now.Add(s.cfg.CodeTTL)); err != nil {
		return "", err
	}
	return c, nil
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
