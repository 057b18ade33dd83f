package agentauth

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Errors of the consent ops: the authorization is unknown, answered or
// expired; the store failed.
var (
	errNoRequest = wire.NewError(wire.CodeNotFound, "this authorization request is unknown or expired; start again from the application")
	errStore     = wire.NewError(wire.CodeInternal, "the authorization request could not be read or answered; see the relay log")
)

// Consent returns what the consent card of request id shows to user.
func (s *Server) Consent(ctx context.Context, user, id string) (wire.AgentConsent, error) {
	req, err := s.pending(ctx, id)
	if err != nil {
		return wire.AgentConsent{}, err
	}
	c := req.Client
	out := wire.AgentConsent{
		ClientName: c.Name, ClientID: c.ID, ClientHost: c.Host, Verified: c.Document,
		RedirectHost: hostOf(req.RedirectURI), Endpoint: req.Resource,
		AllServers: req.AllServers, Servers: req.Servers, Fixed: req.Only != "",
		NameMismatch: c.Document && !nameFitsHost(c.Name, c.Host),
	}
	if !urlnorm.IsLoopback(c.Host) {
		known, err := s.cfg.Store.AgentClientHostKnown(ctx, user, c.Host)
		if err != nil {
			s.cfg.Logger.Error("consent: read known hosts", "err", err)
		}
		out.NewHost = !known
	}
	return out, nil
}

// Decide answers request id for user: a denial sends the client
// access_denied, an approval a code for the servers approved (the ones
// requested, or fewer). Only the first answer counts, wherever it was
// given; an answer refused (no server chosen) leaves the request waiting.
func (s *Server) Decide(ctx context.Context, user string, a wire.AnswerAgentConsentArgs) (wire.AnswerAgentConsentResult, error) {
	req, err := s.pending(ctx, a.Request)
	if err != nil {
		return wire.AnswerAgentConsentResult{}, err
	}
	if !a.Approve {
		if _, err := s.cfg.Store.DenyAgentAuthorization(ctx, a.Request, s.cfg.Now()); err != nil {
			return wire.AnswerAgentConsentResult{}, s.storeError(err)
		}
		s.cfg.Logger.Info("agent authorization denied", "user", user, "client", req.Client.ID)
		return wire.AnswerAgentConsentResult{Redirect: req.errorRedirect(fail("access_denied", "the person denied the authorization"))}, nil
	}
	all, servers, err := s.narrow(user, req, a)
	if err == nil && a.ToolMode != "" && !a.ToolMode.Valid() {
		err = wire.NewError(wire.CodeBadRequest, `the tool mode is one of "tools", "code" and "both"`)
	}
	if err != nil {
		return wire.AnswerAgentConsentResult{}, err
	}
	code, err := s.issueCode(ctx, user, req, approval{AllServers: all, Servers: servers, ToolMode: string(a.ToolMode)})
	if err != nil {
		return wire.AnswerAgentConsentResult{}, s.storeError(err)
	}
	v := url.Values{"code": {code}, "iss": {req.Issuer}}
	if req.State != "" {
		v.Set("state", req.State)
	}
	s.cfg.Logger.Info("agent authorization approved", "user", user, "client", req.Client.ID)
	return wire.AnswerAgentConsentResult{Redirect: withQuery(req.RedirectURI, v)}, nil
}

// pending returns request id while it waits for the person; errNoRequest
// when it does not.
func (s *Server) pending(ctx context.Context, id string) (*request, error) {
	a, err := s.cfg.Store.PendingAgentAuthorization(ctx, id, s.cfg.Now())
	if err != nil {
		return nil, s.storeError(err)
	}
	req, err := readRequest(id, a)
	if err != nil {
		return nil, s.storeError(err)
	}
	return req, nil
}

// storeError is err of the store as the dashboard hears it: a request
// unknown, answered (maybe on another relay) or expired is errNoRequest.
func (s *Server) storeError(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return errNoRequest
	}
	s.cfg.Logger.Error("agent authorization", "err", err)
	return errStore
}

// narrow checks the servers a person approved against what was requested
// and what they have.
func (s *Server) narrow(user string, req *request, a wire.AnswerAgentConsentArgs) (bool, []string, error) {
	if a.AllServers {
		if !req.AllServers {
			return false, nil, wire.NewError(wire.CodeBadRequest, "the application did not ask for all servers")
		}
		return true, nil, nil
	}
	if len(a.Servers) == 0 {
		return false, nil, wire.NewError(wire.CodeBadRequest, "choose at least one server, or deny")
	}
	for _, id := range a.Servers {
		if !req.AllServers && !slices.Contains(req.Servers, id) {
			return false, nil, wire.NewError(wire.CodeBadRequest, "a chosen server was not requested")
		}
		if _, ok := s.cfg.Servers.ServerName(user, id); !ok {
			return false, nil, wire.NewError(wire.CodeNotFound, "a chosen server does not exist (was it removed?)")
		}
	}
	return false, slices.Compact(slices.Sorted(slices.Values(a.Servers))), nil
}

// hostOf is the host of uri, or its scheme for a private-use scheme.
func hostOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return ""
	}
	if u.Host == "" {
		return u.Scheme + ":"
	}
	return u.Hostname()
}

// nameFitsHost reports whether a client's name looks like its host: some
// label of the host (but the last, and www) of three or more characters
// appears in the name, ignoring case and anything but letters and digits.
func nameFitsHost(name, host string) bool {
	if urlnorm.IsLoopback(host) {
		return true
	}
	squash := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return unicode.ToLower(r)
			}
			return -1
		}, s)
	}
	n := squash(name)
	labels := strings.Split(strings.ToLower(host), ".")
	if len(labels) > 1 {
		labels = labels[:len(labels)-1]
	}
	for _, l := range labels {
		if l = squash(l); len(l) >= 3 && l != "www" && strings.Contains(n, l) {
			return true
		}
	}
	return false
}
