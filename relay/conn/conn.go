package conn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/readalong"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Config describes one connection.
type Config struct {
	ID, Name, URL string // URL already normalized
	// HTTPClient carries every request: the relay's guarded client
	// (netguard). Without one the connection fails at once; there is no
	// unguarded default.
	HTTPClient *http.Client
	// Headers are added to every request to the server's origin; their
	// values are secrets and never leave the connection.
	Headers map[string]string
	Logger  *slog.Logger // nil discards
	// HealthInterval is how often a ready connection is probed; default
	// [DefaultHealthInterval].
	HealthInterval time.Duration
	// RetryMin and RetryMax bound the backoff between failed attempts;
	// defaults [DefaultRetryMin] and [DefaultRetryMax]. After RetryAttempts
	// failed attempts in a row (default [DefaultRetryAttempts]) the
	// connection gives up until [Conn.Retry]; it gives up at once on a
	// failure retrying cannot fix (a 400, 404 or 405 answer to the first
	// request, a TLS error, an address the network guard refuses).
	RetryMin, RetryMax time.Duration
	RetryAttempts      int
	// ClientInfo is how the relay introduces itself; default name
	// [DefaultClientName], version [DefaultClientVersion].
	ClientInfo mcp.Implementation
	// Asker puts the server's elicitations and sampling requests before a
	// person; Modes are the kinds advertised. A nil Asker advertises
	// neither elicitation nor sampling.
	Asker Asker
	Modes AskModes
	// Apps declares the MCP Apps extension (wire.AppsExtension) to the
	// server: set when the relay can render views.
	Apps bool
	// Transport is wire.TransportStreamable (the default),
	// wire.TransportSSE (the legacy HTTP+SSE transport) or
	// wire.TransportAuto, which tries Streamable HTTP and falls back to SSE
	// when the endpoint answers 400, 404 or 405 (never on 401 or 403).
	Transport wire.Transport
	// Command is the process of a wire.TransportStdio server (see stdio.go).
	Command *Command
	// Auth, when set, authorizes the connection with OAuth: it supplies the
	// bearer token and decides on 401 and 403 answers. A server that needs
	// a person to authorize moves to StateAuthenticating and waits, without
	// backoff, until that is done (then it reconnects at once) or Retry.
	Auth Authorizer
	// Roots are offered to the server, with list changes; [Conn.SetRoots]
	// replaces them. LogLevel is the level of log messages asked of a server
	// that declares logging (empty: none); [Conn.SetLogLevel] changes it.
	// Journal receives log messages and notifications; nil discards them.
	Roots    []wire.Root
	LogLevel wire.LogLevel
	Journal  Journal
	// Subscriptions are the URIs of the resources subscribed to: each new
	// session subscribes to them again.
	Subscriptions []string
	// CallTimeout bounds each operation on the server (a tool call, a
	// prompt, a read); default [DefaultCallTimeout]. One that passes fails
	// with [Timeout].
	CallTimeout time.Duration
	// MaxResultBytes caps the JSON of one operation's result; a larger one
	// fails with [TooLarge]. Default [wire.MaxResultBytes].
	MaxResultBytes int
}

// withDefaults fills in the zero fields.
func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.HealthInterval <= 0 {
		c.HealthInterval = DefaultHealthInterval
	}
	if c.RetryMin <= 0 {
		c.RetryMin = DefaultRetryMin
	}
	if c.RetryMax <= 0 {
		c.RetryMax = DefaultRetryMax
	}
	c.RetryMax = max(c.RetryMax, c.RetryMin)
	if c.RetryAttempts <= 0 {
		c.RetryAttempts = DefaultRetryAttempts
	}
	if c.ClientInfo.Name == "" {
		c.ClientInfo = mcp.Implementation{Name: DefaultClientName, Version: DefaultClientVersion}
	}
	if c.Transport == "" {
		c.Transport = wire.TransportStreamable
	}
	if c.Transport == wire.TransportStdio {
		c.Auth = nil // OAuth is for HTTP servers
	}
	if c.Journal == nil {
		c.Journal = noJournal{}
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = DefaultCallTimeout
	}
	if c.MaxResultBytes <= 0 {
		c.MaxResultBytes = wire.MaxResultBytes
	}
	return c
}

// Conn is one MCP connection. Its methods are safe for concurrent use.
type Conn struct {
	cfg    Config
	log    *slog.Logger
	report func(State)
	client *mcp.Client
	http   *http.Client // nil without Config.HTTPClient: every attempt fails
	// secrets are the header values and secret URL query values that scrub
	// masks in what the connection logs and shows.
	secrets []string
	auth    *authTransport // carries Config.Auth; nil without it

	ctx     context.Context // cancelled by Close
	cancel  context.CancelFunc
	done    chan struct{} // closed when run returns
	retry   chan struct{} // Retry's request, buffered 1
	changed chan struct{} // a list changed, buffered 1; the kinds are in pending
	// subsChanged says subs changed, buffered 1.
	subsChanged chan struct{}

	mu      sync.Mutex
	live    *session // nil when there is no session
	pending kinds
	subs    map[string]wire.Subscription // kept subscriptions, by URI

	progress progressTokens
	logLevel wire.LogLevel // guarded by mu; see SetLogLevel
	// ra reads along what the server sends: schema key orders, what tasks
	// need, the log and progress messages read (relay/readalong).
	ra readalong.Reader

	rootsMu  sync.Mutex // one SetRoots at a time
	roots    rootSet
	rootList []wire.Root

	// For the agent gateway (caller.go, notify.go): the calls in flight,
	// to attribute asks to them, the listeners of resources/updated and of
	// the server's log messages, and what agents hold: log levels by holder
	// and subscriptions by URI (guarded by mu).
	calls       callRegistry
	updated     listeners[string]
	logs        listeners[*mcp.LoggingMessageParams]
	agentLevels map[any]wire.LogLevel
	agentSubs   map[string]int

	// shown and shownError are the lifecycle state last reported and its
	// error, guarded by mu, for the message of an operation that finds no
	// live session.
	shown      wire.ServerState
	shownError string

	// Owned by the run goroutine.
	state   State // the current state
	emitted State // the state last reported
}

// Start begins connecting in the background. report is called, from one
// goroutine at a time and in order, with the connection's whole current
// [State] every time it changes. report must not call [Conn.Close].
func Start(cfg Config, report func(State)) *Conn {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithCancel(ownContext())
	c := &Conn{
		cfg:         cfg,
		log:         cfg.Logger.With("server", cfg.ID),
		report:      report,
		http:        cfg.HTTPClient,
		ctx:         ctx,
		cancel:      cancel,
		done:        make(chan struct{}),
		retry:       make(chan struct{}, 1),
		changed:     make(chan struct{}, 1),
		subsChanged: make(chan struct{}, 1),
		subs:        initialSubs(cfg.Subscriptions),
		secrets:     secretsOf(cfg),
	}
	c.state.Subscriptions = c.subscriptionList()
	if len(c.secrets) > 0 {
		c.log = slog.New(scrubbing{inner: cfg.Logger.Handler(), scrub: c.scrub}).With("server", cfg.ID)
	}
	if c.http != nil {
		c.http = c.withAuth(c.withHeaders(c.http))
	}
	c.logLevel = cfg.LogLevel
	c.client = newClient(c)
	c.SetRoots(cfg.Roots)
	go c.run()
	return c
}

// newClient builds the go-sdk client of c: elicitation and sampling as
// configured and no other client capability, list changes and progress routed to c, caching
// off.
func newClient(c *Conn) *mcp.Client {
	info := c.cfg.ClientInfo
	client := mcp.NewClient(&info, &mcp.ClientOptions{
		Logger:                        c.log,
		Capabilities:                  c.capabilities(),
		ElicitationHandler:            c.elicitationHandler(),
		ElicitationCompleteHandler:    c.elicitationCompleteHandler(),
		CreateMessageWithToolsHandler: c.samplingHandler(),
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			c.markChanged(kindTools)
		},
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) {
			c.markChanged(kindPrompts)
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			c.markChanged(kindResources)
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			defer c.ra.Notices.Pass()
			c.progress.deliver(req.Params)
		},
		LoggingMessageHandler:  c.logMessage,
		ResourceUpdatedHandler: c.resourceUpdated,
	})
	client.AddSendingMiddleware(noCache, c.asking, c.levelPerRequest)
	client.AddReceivingMiddleware(c.noting)
	registerTaskMethods(client)
	return client
}

// Retry reconnects now: it skips the wait after a failure, or replaces a live
// session. A retry asked for while connecting is that attempt.
func (c *Conn) Retry() {
	select {
	case c.retry <- struct{}{}:
	default:
	}
}

// Close closes the MCP session and stops the goroutines of c (a goroutine
// still waiting for a URL elicitation's completion ends with the session's
// context, just after). It emits nothing after returning and always returns
// nil.
func (c *Conn) Close() error {
	c.cancel()
	<-c.done
	return nil
}

// run is the connection's life: attempts, failures and backoff, until Close.
func (c *Conn) run() {
	defer close(c.done)
	wait := c.cfg.RetryMin
	authRounds := 0 // authorizations since the last ready session
	failures := 0   // failed attempts in a row
	for {
		drain(c.retry)
		wasReady, err := c.attempt()
		if wasReady {
			authRounds, failures = 0, 0
		}
		switch {
		case c.ctx.Err() != nil:
			return
		case errors.Is(err, errRetryNow):
			wait = c.cfg.RetryMin
			continue
		case errors.Is(err, errRecycle):
			c.log.Info("mcp notification stream ended; reconnecting")
			continue
		case c.authNeeded():
			if !c.awaitAuth(&authRounds) {
				return
			}
			wait = c.cfg.RetryMin
			continue
		}
		if wasReady {
			wait = c.cfg.RetryMin
		}
		failures++
		if note := c.giveUp(err, failures); note != "" {
			c.failNoting(err, note)
			if !c.pause(-1) {
				return
			}
			wait, failures = c.cfg.RetryMin, 0
			continue
		}
		c.fail(err)
		if !c.pause(wait) {
			return
		}
		wait = min(2*wait, c.cfg.RetryMax)
	}
}

// giveUp says why the connection stops retrying after err, the
// failures-th in a row, or "" to retry.
func (c *Conn) giveUp(err error, failures int) string {
	var perm *permanentError
	switch {
	case errors.As(err, &perm):
		return "not retrying"
	case failures >= c.cfg.RetryAttempts:
		return fmt.Sprintf("gave up after %d attempts", failures)
	}
	return ""
}

// pause waits d, or less if Retry is called; a negative d waits for Retry
// only. It reports false when c closes.
func (c *Conn) pause(d time.Duration) bool {
	var timeout <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	for {
		select {
		case <-c.ctx.Done():
			return false
		case <-c.retry:
			return true
		case <-timeout:
			return true
		case <-c.subsChanged: // an unsubscribe while the server is away
			c.showSubs()
		}
	}
}

// fail records a failed attempt or session.
func (c *Conn) fail(err error) { c.failNoting(err, "") }

// failNoting records a failed attempt with a note after its cause.
func (c *Conn) failNoting(err error, note string) {
	msg := describe(err)
	if note != "" {
		msg += "; " + note
	}
	msg = wire.Sanitize(c.scrub(msg), wire.MaxErrorMessage)
	c.log.Warn("mcp connection failed", "error", msg)
	c.state.State, c.state.Error = wire.StateFailed, msg
	c.publish()
}

// setState moves to a state other than failed.
func (c *Conn) setState(state wire.ServerState) {
	c.state.State, c.state.Error = state, ""
	c.publish()
}

// publish reports the current state if it differs from the last one
// reported.
func (c *Conn) publish() {
	c.state.Auth = c.authState()
	if reflect.DeepEqual(c.state, c.emitted) {
		return
	}
	c.emitted = c.state
	c.mu.Lock()
	c.shown, c.shownError = c.state.State, c.state.Error
	c.mu.Unlock()
	c.report(c.state)
}

// drain empties a signal channel.
func drain(ch chan struct{}) {
	select {
	case <-ch:
	default:
	}
}
