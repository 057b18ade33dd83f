package agentauth

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Limits of dynamic client registration.
const (
	maxRegistrationBytes = 32 << 10
	// registerRate and registerBurst bound registrations per remote address.
	registerRate  = rate.Limit(1.0 / 6) // ten a minute
	registerBurst = 10
	// authorizeRate and authorizeBurst bound authorization requests (each
	// may fetch a client document and waits in memory) per remote address.
	authorizeRate  = rate.Limit(1)
	authorizeBurst = 30
	maxLimiters    = 4096
)

// registration is the part of an RFC 7591 request the relay reads.
type registration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
}

// serveRegister registers a public client (RFC 7591). Whatever
// authentication method is asked for, the client is public: the answer
// says "none". A registration no grant uses within ClientTTL expires.
func (s *Server) serveRegister(w http.ResponseWriter, r *http.Request) {
	if !s.register.allow(remoteHost(r)) {
		w.Header().Set("Retry-After", "10")
		writeError(w, http.StatusTooManyRequests, fail("slow_down", "too many registrations from this address"))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRegistrationBytes+1))
	if err != nil || len(body) > maxRegistrationBytes {
		writeError(w, http.StatusBadRequest, fail("invalid_client_metadata", "the registration is unreadable or too large"))
		return
	}
	var reg registration
	if err := json.Unmarshal(body, &reg); err != nil {
		writeError(w, http.StatusBadRequest, fail("invalid_client_metadata", "the registration is not valid JSON"))
		return
	}
	if e := checkRegistration(reg); e != nil {
		writeError(w, http.StatusBadRequest, e)
		return
	}
	now := s.cfg.Now()
	if err := s.cfg.Store.DeleteUnusedAgentClients(r.Context(), now); err != nil {
		s.cfg.Logger.Warn("forget unused agent clients", "err", err)
	}
	name := wire.Sanitize(reg.ClientName, maxClientName)
	if name == "" {
		name = "Unnamed client"
	}
	c, err := s.cfg.Store.PutAgentClient(r.Context(), store.AgentClient{Name: name, RedirectURIs: reg.RedirectURIs, Expires: now.Add(s.cfg.ClientTTL)})
	if err != nil {
		s.cfg.Logger.Error("register agent client", "err", err)
		writeError(w, http.StatusInternalServerError, fail("server_error", "the registration could not be stored"))
		return
	}
	s.cfg.Logger.Info("agent client registered", "client", c.ID)
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id":                  c.ID,
		"client_id_issued_at":        c.Created.Unix(),
		"client_name":                c.Name,
		"redirect_uris":              c.RedirectURIs,
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
	})
}

// checkRegistration checks what a client asks to be registered with.
func checkRegistration(reg registration) *oauthError {
	if len(reg.RedirectURIs) == 0 || len(reg.RedirectURIs) > maxRedirectURIs {
		return fail("invalid_redirect_uri", "list 1 to 16 redirect_uris")
	}
	for _, u := range reg.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return fail("invalid_redirect_uri", err.Error())
		}
	}
	for _, g := range reg.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return fail("invalid_client_metadata", "only the authorization_code and refresh_token grants are supported")
		}
	}
	if len(reg.ResponseTypes) > 0 && !slices.Equal(reg.ResponseTypes, []string{"code"}) {
		return fail("invalid_client_metadata", "only the code response type is supported")
	}
	return nil
}

// remoteHost is the address r came from, without its port, as the rate
// limits count it (an IPv6 address by its /64).
func remoteHost(r *http.Request) string {
	h, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		h = r.RemoteAddr
	}
	if ip := net.ParseIP(h); ip != nil && ip.To4() == nil {
		// One IPv6 site holds a whole /64: it is one address to a limit.
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return h
}

// limiters keeps one token bucket per remote address.
type limiters struct {
	rate  rate.Limit
	burst int

	mu sync.Mutex
	m  map[string]*rate.Limiter
}

func newLimiters(r rate.Limit, burst int) *limiters {
	return &limiters{rate: r, burst: burst, m: map[string]*rate.Limiter{}}
}

// allow takes a token of addr's bucket.
func (l *limiters) allow(addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.m[addr]
	if !ok {
		if len(l.m) >= maxLimiters {
			for k, v := range l.m {
				if v.TokensAt(time.Now()) >= float64(l.burst) {
					delete(l.m, k) // full again: forgetting it changes nothing
				}
			}
		}
		b = rate.NewLimiter(l.rate, l.burst)
		l.m[addr] = b
	}
	return b.Allow()
}
