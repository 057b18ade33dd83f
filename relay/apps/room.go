package apps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Bounds of the cache of views, and the room left in an answer for its
// frame around the view.
const (
	answerHeadroom  = 1 << 10
	maxViewsPerUser = 64
	maxUsers        = 1024
)

// Sessions gives each person's session; *session.Manager satisfies it.
type Sessions interface {
	Session(user string) *session.Session
}

// Config configures a [Room].
type Config struct {
	Sessions Sessions
	// Own are the origins no view may declare: the relay's own and the
	// Apps origin.
	Own []string
	// MaxResult is the relay's limit on an op's answer, in bytes of JSON
	// (the sessions' MaxResult); zero means wire.MaxResultBytes. A view
	// whose answer would be larger is refused as too large.
	MaxResult int
}

// Room answers the Apps ops: app.read and app.log.
type Room struct {
	sessions  Sessions
	own       []origin
	maxResult int

	mu    sync.Mutex
	users map[string]*userViews
	order []string // users, least recently added first
}

// userViews are the views read for one person, and the watch that drops a
// server's views when its lists change or it disconnects.
type userViews struct {
	stop  func()
	views map[viewKey]wire.AppView
	order []viewKey
	gen   map[string]uint64 // per server, bumped when its views are dropped
}

type viewKey struct{ server, uri string }

// New returns the room.
func New(cfg Config) (*Room, error) {
	r := &Room{sessions: cfg.Sessions, users: map[string]*userViews{}, maxResult: cfg.MaxResult}
	if r.maxResult <= 0 {
		r.maxResult = wire.MaxResultBytes
	}
	for _, o := range cfg.Own {
		p, ok := originOf(o)
		if !ok {
			return nil, fmt.Errorf("apps: %q is not an origin", o)
		}
		r.own = append(r.own, p)
	}
	return r, nil
}

// HandleOps registers the room's ops on m.
func (r *Room) HandleOps(m *ops.Mux) {
	m.Handle(wire.OpReadApp, ops.With(r.read))
	m.Handle(wire.OpAppLog, ops.With(r.log))
}

// Close stops following the sessions.
func (r *Room) Close() {
	r.mu.Lock()
	users := r.users
	r.users, r.order = map[string]*userViews{}, nil
	r.mu.Unlock()
	for _, u := range users {
		u.stop()
	}
}

var errNoServer = wire.NewError(wire.CodeNotFound, "no such server")

func (r *Room) read(ctx context.Context, user string, a wire.ReadAppArgs) (any, error) {
	if len(a.URI) < len("ui://") || a.URI[:5] != "ui://" {
		return nil, wire.NewError(wire.CodeBadRequest, "a view's URI starts with ui://")
	}
	s := r.sessions.Session(user)
	o, ok := s.Server(a.Server)
	if !ok {
		return nil, errNoServer
	}
	k := viewKey{a.Server, a.URI}
	u, gen, v, ok := r.cached(user, s, k)
	if ok {
		return v, nil
	}
	res, err := o.ReadResource(ctx, session.Caller{}, &mcp.ReadResourceParams{URI: a.URI})
	var ce *conn.Error
	if errors.As(err, &ce) && ce.Code == conn.TooLarge {
		return nil, errTooBig
	}
	if err != nil {
		return nil, err
	}
	v, err = viewOf(a.Server, a.URI, res, r.own)
	if err != nil {
		return nil, err
	}
	// JSON writes each <, > and & of the HTML in six bytes: a view under
	// wire.MaxAppHTML may still not fit in an answer.
	if b, err := json.Marshal(v); err != nil || len(b) > r.maxResult-answerHeadroom {
		return nil, errTooBig
	}
	r.keep(user, u, k, gen, v)
	return v, nil
}

// cached returns the cached view of k, or the generation of its server's
// views to keep a fresh read under.
func (r *Room) cached(user string, s *session.Session, k viewKey) (*userViews, uint64, wire.AppView, bool) {
	r.mu.Lock()
	u := r.users[user]
	r.mu.Unlock()
	if u == nil {
		u = r.follow(user, s)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := u.views[k]
	return u, u.gen[k.server], v, ok
}

// follow starts the person's cache, which a watch of their session clears
// server by server.
func (r *Room) follow(user string, s *session.Session) *userViews {
	u := &userViews{views: map[viewKey]wire.AppView{}, gen: map[string]uint64{}}
	// The watch is made outside r.mu: it runs under the session's lock
	// and takes r.mu.
	u.stop = s.Watch(func(server string) { r.drop(u, server) })
	var stops []func()
	r.mu.Lock()
	if had := r.users[user]; had != nil {
		stops = append(stops, u.stop)
		u = had
	} else {
		r.users[user] = u
		r.order = append(r.order, user)
		if len(r.order) > maxUsers {
			old := r.order[0]
			r.order = r.order[1:]
			stops = append(stops, r.users[old].stop)
			delete(r.users, old)
		}
	}
	r.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
	return u
}

// drop forgets the views of server.
func (r *Room) drop(u *userViews, server string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	u.gen[server]++
	for k := range u.views {
		if k.server == server {
			delete(u.views, k)
		}
	}
	u.order = slices.DeleteFunc(u.order, func(k viewKey) bool { return k.server == server })
}

// keep caches v in u, unless u was let go or its server's views were
// dropped since gen.
func (r *Room) keep(user string, u *userViews, k viewKey, gen uint64, v wire.AppView) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.users[user] != u || u.gen[k.server] != gen {
		return
	}
	if _, had := u.views[k]; !had {
		u.order = append(u.order, k)
	}
	u.views[k] = v
	if len(u.order) > maxViewsPerUser {
		delete(u.views, u.order[0])
		u.order = u.order[1:]
	}
}

func (r *Room) log(_ context.Context, user string, a wire.AppLogArgs) (any, error) {
	if !slices.Contains(wire.LogLevels, wire.LogLevel(a.Level)) {
		return nil, wire.NewError(wire.CodeBadRequest, "no such log level")
	}
	o, ok := r.sessions.Session(user).Server(a.Server)
	if !ok {
		return nil, errNoServer
	}
	logger := "view " + a.URI
	if a.Logger != "" {
		logger += ": " + a.Logger
	}
	o.LogFromView(wire.LogLevel(a.Level), &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(a.Level), Logger: logger, Data: a.Data})
	return struct{}{}, nil
}
