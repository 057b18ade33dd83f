package session

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/servercfg"
	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// A server's configuration: its id, name, URL (secret query values masked
// for the dashboards), transport, custom headers (values never leave the
// relay), retry settings and whether the person keeps it disconnected.
// Changes are written to the store under the session's config lock, never
// under its state lock, and the connection restarts with the new settings.

// errSecretsLost is shown for a server whose sealed secrets do not open.
const errSecretsLost = "its header values and URL secrets cannot be opened (the seal key changed): edit the server to set them again"

// newRegistration checks an AddServer op's arguments and returns the
// registration to store: the id normalized (or generated), the URL
// normalized with its secret query values masked for display, the
// transport auto when empty.
func newRegistration(user string, args wire.AddServerArgs) (store.Server, error) {
	if args.Catalog != "" { // a session resolves it first (fromCatalog)
		return store.Server{}, wire.NewError(wire.CodeBadRequest, "a server of the catalog is added in the dashboard")
	}
	name := strings.TrimSpace(args.Name)
	if err := checkName(name); err != nil {
		return store.Server{}, err
	}
	u, shown, err := checkURL(args.URL)
	if err != nil {
		return store.Server{}, err
	}
	transport, err := checkTransport(args.Transport)
	if err != nil {
		return store.Server{}, err
	}
	id := randomHex(6)
	if strings.TrimSpace(args.ID) != "" {
		if id, err = servercfg.NormalizeID(args.ID); err != nil {
			return store.Server{}, wire.NewError(wire.CodeBadRequest, err.Error())
		}
		if strings.HasPrefix(id, StdioIDPrefix) {
			return store.Server{}, wire.NewError(wire.CodeBadRequest, fmt.Sprintf("ids beginning with %q belong to the relay's configured servers: choose another", StdioIDPrefix))
		}
	}
	headers, err := mergeHeaders(nil, args.Headers)
	if err != nil {
		return store.Server{}, err
	}
	retry, err := checkRetry(args.Retry)
	if err != nil {
		return store.Server{}, err
	}
	return store.Server{User: user, ID: id, Name: name, URL: u, DisplayURL: shown, Transport: string(transport),
		Headers: headers, Retry: retry, CreatedAt: time.Now()}, nil
}

// checkURL normalizes raw and masks its secret query values.
func checkURL(raw string) (u, shown string, err error) {
	u, err = urlnorm.Normalize(raw)
	if err != nil {
		return "", "", wire.NewError(wire.CodeInvalidURL, err.Error())
	}
	if masked, ok := servercfg.MaskURL(u); ok {
		shown = masked
	}
	return u, shown, nil
}

// mergeHeaders returns old with changes applied: a header with an empty
// value is deleted, others are set. Names are canonical.
func mergeHeaders(old, changes map[string]string) (map[string]string, error) {
	out := maps.Clone(old)
	for name, value := range changes {
		canon := servercfg.CanonicalHeader(name)
		if value == "" {
			delete(out, canon)
			continue
		}
		if err := servercfg.CheckHeader(name, value); err != nil {
			return nil, wire.NewError(wire.CodeBadRequest, err.Error())
		}
		if out == nil {
			out = map[string]string{}
		}
		out[canon] = value
	}
	if len(out) > servercfg.MaxHeaders {
		return nil, wire.NewError(wire.CodeBadRequest, fmt.Sprintf("a server may have at most %d headers", servercfg.MaxHeaders))
	}
	return out, nil
}

// checkRetry checks retry settings; nil is the defaults.
func checkRetry(r *wire.Retry) (store.Retry, error) {
	if r == nil {
		return store.Retry{}, nil
	}
	if err := servercfg.CheckRetry(*r); err != nil {
		return store.Retry{}, wire.NewError(wire.CodeBadRequest, err.Error())
	}
	return store.Retry{Attempts: r.Attempts, BaseDelayMS: r.BaseDelayMS, MaxDelayMS: r.MaxDelayMS}, nil
}

// displayURL is the URL the dashboards see: secret query values masked.
func displayURL(reg store.Server) string {
	if reg.DisplayURL != "" {
		return reg.DisplayURL
	}
	return reg.URL
}

// stampConfig puts reg's configuration into a server's state.
func stampConfig(reg store.Server, st *wire.Server) {
	st.HeaderNames = nil
	if len(reg.Headers) > 0 {
		st.HeaderNames = reg.HeaderNames()
	}
	st.Disconnected = reg.Disconnected
	st.Retry = nil
	if reg.Retry != (store.Retry{}) {
		st.Retry = &wire.Retry{Attempts: reg.Retry.Attempts, BaseDelayMS: reg.Retry.BaseDelayMS, MaxDelayMS: reg.Retry.MaxDelayMS}
	}
	if wire.Transport(reg.Transport) != wire.TransportAuto {
		st.TransportInUse = ""
	}
}

// Update edits the server in place and restarts its connection with the
// new settings. Its tokens, ask modes, subscriptions and preferences stay,
// unless the URL's origin changes: then its OAuth tokens and registrations
// are dropped, in the same transaction.
func (o *Server) Update(ctx context.Context, a wire.UpdateServerArgs) error {
	s := o.s
	s.config.Lock()
	defer s.config.Unlock()
	reg := o.registration()
	if isConfigured(reg) {
		return refuseConfigured(reg, "edited")
	}
	next, err := applyUpdate(reg, a)
	if err != nil {
		return err
	}
	if err := s.checkNameFree(next.Name, next.ID); err != nil {
		return err
	}
	originChanged := !sameOrigin(reg.URL, next.URL)
	if err := s.m.store.UpdateServer(ctx, next, originChanged); err != nil {
		if errors.Is(err, store.ErrNameTaken) {
			return nameTaken(next.Name)
		}
		s.m.logger.Error("update server", "user", s.user, "server", reg.ID, "err", err)
		return storeFailed(err, "could not save the server")
	}
	next.SecretsErr = nil
	if s.m.auth != nil {
		switch {
		case originChanged:
			if err := s.m.auth.Forget(ctx, s.user, reg.ID); err != nil {
				s.m.logger.Error("forget oauth", "user", s.user, "server", reg.ID, "err", err)
			}
		case next.URL != reg.URL:
			s.m.auth.Release(s.user, reg.ID)
		}
	}
	s.m.logger.Info("server updated", "user", s.user, "server", reg.ID, "url", withoutQuery(next.URL), "origin_changed", originChanged)
	o.restart(func(r *store.Server) { *r = next })
	return nil
}

// SetConnected connects or disconnects the server without removing it;
// the choice is stored, so a disconnected server stays so across restarts.
func (o *Server) SetConnected(ctx context.Context, connected bool) error {
	s := o.s
	s.config.Lock()
	defer s.config.Unlock()
	reg := o.registration()
	if reg.Disconnected == !connected {
		return nil
	}
	if err := s.m.store.SetServerDisconnected(ctx, s.user, reg.ID, !connected); err != nil {
		s.m.logger.Error("store server connection", "user", s.user, "server", reg.ID, "err", err)
		return storeFailed(err, "could not save the change")
	}
	s.m.logger.Info("server connection set", "user", s.user, "server", reg.ID, "connected", connected)
	o.restart(func(r *store.Server) { r.Disconnected = !connected })
	return nil
}

// restart changes the registration with change, shows it, closes the
// connection and dials again (a disconnected server is not dialed).
func (o *Server) restart(change func(*store.Server)) {
	s := o.s
	s.mu.Lock()
	if o.closed {
		s.mu.Unlock()
		return
	}
	change(&o.reg)
	old := o.conn
	o.conn = nil
	o.restampLocked()
	s.mu.Unlock()
	if old != nil {
		old.Close()
	}
	o.connect()
}

// registration returns a copy of the server's registration.
func (o *Server) registration() store.Server {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	reg := o.reg
	reg.Headers = maps.Clone(reg.Headers)
	return reg
}

// checkNameFree fails when a server other than id has name.
func (s *Session) checkNameFree(name, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, oid := range s.order {
		if oid != id && s.servers[oid].reg.Name == name {
			return nameTaken(name)
		}
	}
	return nil
}

func nameTaken(name string) error {
	return wire.NewError(wire.CodeBadRequest, fmt.Sprintf("a server named %q already exists: server names are unique", name))
}

// applyUpdate returns reg changed by a, checked as an AddServer op is.
func applyUpdate(reg store.Server, a wire.UpdateServerArgs) (store.Server, error) {
	if a.Name != nil {
		name := strings.TrimSpace(*a.Name)
		if err := checkName(name); err != nil {
			return reg, err
		}
		reg.Name = name
	}
	oldURL, oldHeaders := reg.URL, reg.Headers
	if a.URL != nil && *a.URL != displayURL(reg) {
		edited := strings.TrimSpace(*a.URL)
		if sameOrigin(edited, oldURL) { // a masked secret goes back only to its own origin
			edited = servercfg.Unmask(edited, oldURL)
		}
		u, shown, err := checkURL(edited)
		if err != nil {
			return reg, err
		}
		if strings.Contains(u, servercfg.Mask) {
			return reg, wire.NewError(wire.CodeInvalidURL, "the URL holds a masked secret ("+servercfg.Mask+") that is not the server's: type the secret")
		}
		reg.URL, reg.DisplayURL = u, shown
	}
	if a.Transport != nil {
		t, err := checkTransport(*a.Transport)
		if err != nil {
			return reg, err
		}
		reg.Transport = string(t)
	}
	headers, err := mergeHeaders(reg.Headers, a.Headers)
	if err != nil {
		return reg, err
	}
	if !sameOrigin(reg.URL, oldURL) {
		if kept := untyped(oldHeaders, a.Headers); len(kept) > 0 {
			return reg, wire.NewError(wire.CodeBadRequest, "the server moves to another origin, and the relay does not send its header values there: type them again or delete them ("+strings.Join(kept, ", ")+")")
		}
	}
	for name, value := range headers {
		if value == "" { // its value was lost with the seal key and not set again
			delete(headers, name)
		}
	}
	reg.Headers = headers
	if reg.SecretsErr != nil && strings.Contains(reg.URL, servercfg.Mask) {
		return reg, wire.NewError(wire.CodeInvalidURL, "the URL's secret was lost with the seal key: type the whole URL again")
	}
	if a.Retry != nil {
		if reg.Retry, err = checkRetry(a.Retry); err != nil {
			return reg, err
		}
	}
	return reg, nil
}

// originOf returns scheme://host[:port] of a normalized URL.
// sameOrigin reports whether two URLs have the same scheme and host.
func sameOrigin(a, b string) bool { return strings.EqualFold(originOf(a), originOf(b)) }

// untyped lists, sorted, the headers of old whose value an update does not
// give again (a value or a deletion).
func untyped(old, update map[string]string) []string {
	var names []string
	for name := range old {
		if _, ok := lookupHeader(update, name); !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// lookupHeader finds name in headers, ignoring case as HTTP does.
func lookupHeader(headers map[string]string, name string) (string, bool) {
	for k, v := range headers {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Scheme + "://" + u.Host
}
