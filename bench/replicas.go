package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-mcp/switchboard/relay/replica/replicatest"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/relay/store/pgtest"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The replicas run as the bench's own child relays (startReplica) rather
// than as the switchboard binary: the child prints its addresses once it
// listens (no polling, and the internal address is a port the child
// already holds), and its control routes give tokens and agent keys of any
// user and the heap after a GC, which the memory row needs.

// replicaCount is how many replicas the figure keeps alive.
const replicaCount = 3

// replicaRoundTimeout bounds one failover and the setup of one user.
const replicaRoundTimeout = 30 * time.Second

// replicaUser is the user of the call and failover rows.
const replicaUser = "bench"

// oneGiB is the memory the idle-users row fills.
const oneGiB = 1 << 30

// replicasFigure runs relays as replicas on one PostgreSQL (issue 23) and
// measures an agent's call forwarded by a replica against the same call on
// the user's owner, the failover when the owner is killed, and the memory
// of an idle user a replica owns.
func replicasFigure(ctx context.Context, cfg config) ([]row, error) {
	if pgtest.Off() {
		return []row{{figure: "replicas", switchboard: "skipped: $" + pgtest.EnvVar + " is off"}}, nil
	}
	c, err := startCluster(ctx)
	if err != nil {
		return nil, err
	}
	defer c.close()
	id, err := c.register(ctx, replicaUser)
	if err != nil {
		return nil, err
	}
	rows, err := c.callRows(ctx, cfg, id)
	if err != nil {
		return rows, err
	}
	rs, err := c.failoverRows(ctx, cfg, id)
	rows = append(rows, rs...)
	if err != nil {
		return rows, err
	}
	rs, err = c.idleRows(ctx, cfg)
	return append(rows, rs...), err
}

// cluster is a PostgreSQL server, the replicas on it and a fixture server
// that its users register.
type cluster struct {
	pg       *pgtest.Server
	dir      string       // the data directory of the harness's store
	st       *store.Store // the harness's own: registrations and owners
	fixture  *mcpFixture
	replicas []*relayProc // those alive
	unsetKey func()       // restores $SWITCHBOARD_SEAL_KEY
}

// startCluster starts PostgreSQL, the fixture and replicaCount replicas,
// all sharing replicatest.SealKey (the children inherit it).
func startCluster(ctx context.Context) (c *cluster, err error) {
	prev, had := os.LookupEnv(store.SealKeyEnv)
	os.Setenv(store.SealKeyEnv, replicatest.SealKey)
	c = &cluster{unsetKey: func() {
		if had {
			os.Setenv(store.SealKeyEnv, prev)
		} else {
			os.Unsetenv(store.SealKeyEnv)
		}
	}}
	defer func() {
		if err != nil {
			c.close()
		}
	}()
	if c.pg, err = pgtest.Start(); err != nil {
		return c, err
	}
	if c.dir, err = os.MkdirTemp("", "switchboard-bench-store-"); err != nil {
		return c, err
	}
	if c.st, err = store.OpenTarget(ctx, c.pg.URL(), c.dir); err != nil {
		return c, err
	}
	if c.fixture, err = startFixture(0); err != nil {
		return c, err
	}
	for range replicaCount {
		if err := c.add(); err != nil {
			return c, err
		}
	}
	return c, nil
}

func (c *cluster) close() {
	for _, r := range c.replicas {
		r.stop()
	}
	if c.fixture != nil {
		c.fixture.Stop()
	}
	if c.st != nil {
		c.st.Close()
	}
	if c.pg != nil {
		c.pg.Stop()
	}
	if c.dir != "" {
		os.RemoveAll(c.dir)
	}
	c.unsetKey()
}

// add starts a replica.
func (c *cluster) add() error {
	r, err := startReplica(c.pg.URL())
	if err != nil {
		return fmt.Errorf("start a replica: %w", err)
	}
	c.replicas = append(c.replicas, r)
	return nil
}

// kill kills r with SIGKILL and forgets it.
func (c *cluster) kill(r *relayProc) error {
	c.replicas = slices.DeleteFunc(c.replicas, func(o *relayProc) bool { return o == r })
	return r.kill()
}

// owner returns the replica that owns user.
func (c *cluster) owner(ctx context.Context, user string) (*relayProc, error) {
	addr, err := replicatest.Owner(ctx, c.st, user)
	if err != nil {
		return nil, err
	}
	for _, r := range c.replicas {
		if r.hello.Internal == addr {
			return r, nil
		}
	}
	return nil, fmt.Errorf("%s is owned by %q, none of the replicas alive", user, addr)
}

// other returns a replica alive other than r.
func (c *cluster) other(r *relayProc) *relayProc {
	for _, o := range c.replicas {
		if o != r {
			return o
		}
	}
	return nil
}

// register registers the fixture for user in the store, as the command
// line's servers add does, and returns the server's id.
func (c *cluster) register(ctx context.Context, user string) (string, error) {
	res, err := session.Register(ctx, c.st, user, wire.AddServerArgs{Name: "fixture", URL: c.fixture.URL()})
	return res.ID, err
}

// dashboard opens a dashboard with tok on r and waits until the server id
// is ready in it.
func dashboard(ctx context.Context, r *relayProc, tok, id string) (*socket, error) {
	s, err := dialSocket(ctx, r, tok)
	if err != nil {
		return nil, fmt.Errorf("dashboard socket: %w", err)
	}
	if err := s.waitReady(ctx, id); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// callRows times an agent's tool call through /mcp on the user's owner and
// through another replica, which forwards it to the owner, alternating.
func (c *cluster) callRows(ctx context.Context, cfg config, id string) ([]row, error) {
	owner, via := c.replicas[0], c.replicas[1]
	key, err := owner.agentKeyOf(replicaUser)
	if err != nil {
		return nil, err
	}
	tok, err := owner.tokenOf(replicaUser)
	if err != nil {
		return nil, err
	}
	// The first request for the user, the agent's initialize, makes owner
	// the owner; its dashboard says when the owner's connection is ready.
	onOwner, err := connectAgent(ctx, owner, key, "/mcp")
	if err != nil {
		return nil, err
	}
	defer onOwner.Close()
	dash, err := dashboard(ctx, owner, tok, id)
	if err != nil {
		return nil, err
	}
	dash.close()
	forwarded, err := connectAgent(ctx, via, key, "/mcp")
	if err != nil {
		return nil, err
	}
	defer forwarded.Close()
	if o, err := c.owner(ctx, replicaUser); err != nil {
		return nil, err
	} else if o != owner {
		return nil, errors.New("the user is not owned by the replica the agent reached first")
	}

	name := id + "__" + toolTick
	own, fwd, err := alternate(cfg.calls,
		func() (time.Duration, error) { return timedCall(ctx, onOwner, name) },
		func() (time.Duration, error) { return timedCall(ctx, forwarded, name) })
	if err != nil {
		return nil, err
	}
	const figure = "replicas: agent call through /mcp on a replica that forwards it to the user's owner"
	return []row{
		ratioRow(figure+", p50", median(fwd), median(own), "on the owner", 0),
		ratioRow(figure+", p99", percentile(fwd, 99), percentile(own, 99), "on the owner", 0),
	}, nil
}

// failoverRows kills the user's owner cfg.kills times, each time with
// replicaCount alive: a fresh replica replaces the one killed before.
func (c *cluster) failoverRows(ctx context.Context, cfg config, id string) ([]row, error) {
	tok, err := c.replicas[0].tokenOf(replicaUser) // any replica's token is every replica's
	if err != nil {
		return nil, err
	}
	var closed, synced, ready []time.Duration
	for i := range cfg.kills {
		for len(c.replicas) < replicaCount {
			if err := c.add(); err != nil {
				return nil, err
			}
		}
		cl, sy, re, err := c.failover(ctx, tok, id)
		if err != nil {
			return nil, fmt.Errorf("failover %d: %w", i+1, err)
		}
		closed, synced, ready = append(closed, cl), append(synced, sy), append(ready, re)
	}
	figure := fmt.Sprintf("replicas: failover, SIGKILL of the user's owner until their dashboard on another replica shows the server ready again, %%s of %d kills", len(ready))
	return []row{
		{figure: fmt.Sprintf(figure, "p50"), switchboard: ms(median(ready)), reference: "the dashboard reconnects as soon as the relay says it restarts"},
		{figure: fmt.Sprintf(figure, "p99"), switchboard: ms(percentile(ready, 99)), reference: "max " + ms(slices.Max(ready))},
		{figure: "replicas: where a failover's time goes (p50 of each, from the kill)", switchboard: fmt.Sprintf("socket closed %s; reconnected (snapshot) %s; server ready %s",
			ms(median(closed)), ms(median(synced)), ms(median(ready)))},
	}, nil
}

// failover opens a dashboard of the user with tok on a replica that does
// not own them, kills the owner with SIGKILL and times until the socket
// closes, until it is open again (the snapshot read) and until the server
// id is ready in it, each from the kill.
func (c *cluster) failover(ctx context.Context, tok, id string) (closed, synced, ready time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, replicaRoundTimeout)
	defer cancel()
	owner, err := c.owner(ctx, replicaUser)
	if err != nil {
		return 0, 0, 0, err
	}
	at := c.other(owner)
	dash, err := dashboard(ctx, at, tok, id)
	if err != nil {
		return 0, 0, 0, err
	}
	start := time.Now()
	if err := c.kill(owner); err != nil {
		dash.close()
		return 0, 0, 0, err
	}
	err = dash.closed(ctx)
	closed = time.Since(start)
	if websocket.CloseStatus(err) != websocket.StatusCode(wire.CloseShuttingDown) {
		return 0, 0, 0, fmt.Errorf("the dashboard's socket ended with %v, want the relay restarting", err)
	}
	if dash, err = dialSocket(ctx, at, tok); err != nil {
		return 0, 0, 0, fmt.Errorf("reconnect: %w", err)
	}
	defer dash.close()
	synced = time.Since(start)
	if err := dash.waitReady(ctx, id); err != nil {
		return 0, 0, 0, err
	}
	ready = time.Since(start)
	if _, err := c.owner(ctx, replicaUser); err != nil {
		return 0, 0, 0, err
	}
	return closed, synced, ready, nil
}

// idleRows has one fresh replica, alone, own cfg.idleUsers users, each
// with the fixture registered, through one dashboard each that waits until
// the server is ready and closes, and reports the replica's heap and stacks
// per user after a GC, and how many such users fit in oneGiB.
func (c *cluster) idleRows(ctx context.Context, cfg config) ([]row, error) {
	for _, r := range c.replicas {
		r.stop()
	}
	c.replicas = nil
	if err := c.add(); err != nil {
		return nil, err
	}
	m := c.replicas[0]
	users := make([]string, cfg.idleUsers)
	ids := make([]string, len(users))
	for i := range users {
		users[i] = fmt.Sprintf("idle-%04d", i)
		var err error
		if ids[i], err = c.register(ctx, users[i]); err != nil {
			return nil, err
		}
	}
	base, err := m.mem()
	if err != nil {
		return nil, err
	}
	for i, user := range users {
		if err := own(ctx, m, user, ids[i]); err != nil {
			return nil, fmt.Errorf("user %s: %w", user, err)
		}
	}
	got, err := m.mem()
	if err != nil {
		return nil, err
	}
	for _, user := range []string{users[0], users[len(users)-1]} {
		if o, err := c.owner(ctx, user); err != nil || o != m {
			return nil, errors.Join(fmt.Errorf("%s is not owned by the replica measured", user), err)
		}
	}
	n := float64(len(users))
	per := (float64(got.total()) - float64(base.total())) / n
	fit := int(oneGiB/per) / 100 * 100
	return []row{
		{figure: fmt.Sprintf("replicas: memory per idle user one replica owns (%d users, one connected server each)", len(users)), switchboard: kb(per),
			reference: fmt.Sprintf("relay heap + stacks after GC; %.1f goroutines per user", float64(got.Goroutines-base.Goroutines)/n)},
		{figure: "replicas: idle users one replica can own in 1 GiB of heap + stacks", switchboard: fmt.Sprintf("about %d", fit), reference: "from the row above"},
	}, nil
}

// own makes r the owner of user with one request, a dashboard that waits
// until the server id is ready and closes.
func own(ctx context.Context, r *relayProc, user, id string) error {
	ctx, cancel := context.WithTimeout(ctx, replicaRoundTimeout)
	defer cancel()
	tok, err := r.tokenOf(user)
	if err != nil {
		return err
	}
	dash, err := dashboard(ctx, r, tok, id)
	if err != nil {
		return err
	}
	dash.close()
	return nil
}
