package agentauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Limits of client ID metadata documents.
const (
	maxDocumentBytes = 16 << 10
	documentTimeout  = 5 * time.Second
	// documentMaxAge caps how long a document is cached, whatever it says.
	documentMaxAge = 24 * time.Hour
	// documentDefaultAge is how long a document without cache headers is kept.
	documentDefaultAge = 5 * time.Minute
	maxCachedDocuments = 512
	maxClientName      = 100
	maxRedirectURIs    = 16
)

// document is the part of a client ID metadata document the relay reads.
type document struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
}

// cimdCache keeps fetched documents for as long as they allow.
type cimdCache struct {
	mu      sync.Mutex
	entries map[string]cimdEntry
}

type cimdEntry struct {
	c       client
	expires time.Time
}

func newCIMDCache() *cimdCache { return &cimdCache{entries: map[string]cimdEntry{}} }

func (c *cimdCache) get(id string, now time.Time) (client, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[id]
	if !ok || !now.Before(e.expires) {
		delete(c.entries, id)
		return client{}, false
	}
	return e.c, true
}

func (c *cimdCache) put(id string, cl client, expires time.Time, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxCachedDocuments {
		for k, e := range c.entries {
			if !now.Before(e.expires) || len(c.entries) >= maxCachedDocuments {
				delete(c.entries, k)
			}
		}
	}
	c.entries[id] = cimdEntry{c: cl, expires: expires}
}

// checkClientIDURL checks a client id that is a URL: https with a path
// (http on loopback only for a loopback relay), no fragment, no user info.
func (s *Server) checkClientIDURL(id string) (*url.URL, error) {
	u, err := url.Parse(id)
	switch {
	case err != nil:
		return nil, errors.New("the client id is not a URL")
	case u.User != nil || u.Fragment != "" || u.Host == "":
		return nil, errors.New("the client id URL has user info, a fragment or no host")
	case u.Path == "" || u.Path == "/":
		return nil, errors.New("the client id URL must have a path")
	case u.Scheme == "https":
		return u, nil
	case u.Scheme == "http" && s.cfg.LoopbackClients && urlnorm.IsLoopback(u.Hostname()):
		return u, nil
	}
	return nil, errors.New("the client id URL must use https")
}

// fetchDocument returns the client a metadata document describes, from the
// cache or fetched through the relay's guarded client.
func (s *Server) fetchDocument(ctx context.Context, id string) (client, error) {
	u, err := s.checkClientIDURL(id)
	if err != nil {
		return client{}, err
	}
	now := s.cfg.Now()
	if c, ok := s.cimd.get(id, now); ok {
		return c, nil
	}
	ctx, cancel := context.WithTimeout(ctx, documentTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return client{}, fmt.Errorf("client metadata document: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	hc := *s.cfg.HTTPClient // the document must come from its own address: no redirect is followed
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.Do(req)
	if err != nil {
		return client{}, fmt.Errorf("fetch the client metadata document: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return client{}, fmt.Errorf("fetch the client metadata document: status %d", resp.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return client{}, fmt.Errorf("the client metadata document is %q, not JSON", mt)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentBytes+1))
	if err != nil {
		return client{}, fmt.Errorf("read the client metadata document: %w", err)
	}
	if len(body) > maxDocumentBytes {
		return client{}, fmt.Errorf("the client metadata document is larger than %d bytes", maxDocumentBytes)
	}
	var doc document
	if err := json.Unmarshal(body, &doc); err != nil {
		return client{}, fmt.Errorf("the client metadata document is not valid JSON: %w", err)
	}
	c, err := fromDocument(id, u, doc)
	if err != nil {
		return client{}, err
	}
	if age, ok := cacheAge(resp.Header, now); ok {
		s.cimd.put(id, c, now.Add(age), now)
	}
	return c, nil
}

// fromDocument checks a document fetched from id.
func fromDocument(id string, u *url.URL, doc document) (client, error) {
	switch {
	case doc.ClientID != id:
		return client{}, errors.New("the client metadata document names another client_id")
	case len(doc.RedirectURIs) == 0 || len(doc.RedirectURIs) > maxRedirectURIs:
		return client{}, fmt.Errorf("the client metadata document must list 1 to %d redirect_uris", maxRedirectURIs)
	case doc.TokenEndpointAuthMethod != "" && doc.TokenEndpointAuthMethod != "none":
		return client{}, errors.New("the relay serves public clients only (token_endpoint_auth_method none)")
	}
	for _, r := range doc.RedirectURIs {
		if err := checkRedirectURI(r); err != nil {
			return client{}, err
		}
	}
	name := wire.Sanitize(doc.ClientName, maxClientName)
	if name == "" {
		name = u.Hostname()
	}
	return client{ID: id, Name: name, Host: u.Hostname(), Document: true, RedirectURIs: doc.RedirectURIs}, nil
}

// cacheAge reads how long a response may be cached: no-store and no-cache
// mean not at all, max-age (capped) otherwise, then Expires, else a default.
func cacheAge(h http.Header, now time.Time) (time.Duration, bool) {
	for _, d := range strings.Split(strings.ToLower(h.Get("Cache-Control")), ",") {
		d = strings.TrimSpace(d)
		switch {
		case d == "no-store" || d == "no-cache":
			return 0, false
		case strings.HasPrefix(d, "max-age="):
			n, err := strconv.Atoi(strings.TrimPrefix(d, "max-age="))
			if err != nil || n <= 0 {
				return 0, false
			}
			return min(time.Duration(n)*time.Second, documentMaxAge), true
		}
	}
	if e := h.Get("Expires"); e != "" {
		t, err := http.ParseTime(e)
		if err != nil || !t.After(now) {
			return 0, false
		}
		return min(t.Sub(now), documentMaxAge), true
	}
	return documentDefaultAge, true
}
