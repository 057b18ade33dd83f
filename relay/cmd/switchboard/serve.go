package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/demohost"
	"github.com/switchboard-mcp/switchboard/relay/models"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/replica"
	"github.com/switchboard-mcp/switchboard/relay/service"
	"github.com/switchboard-mcp/switchboard/relay/signin"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/relay/tracing"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// shutdownTimeout bounds a graceful stop.
const shutdownTimeout = 10 * time.Second

// dataFlags are the flags every command that touches the data directory shares.
type dataFlags struct {
	data, issuer, audience *string
}

func addDataFlags(fs *flagSet) dataFlags {
	return dataFlags{
		data:     fs.String("data", "./data", "data directory (created 0700)"),
		issuer:   fs.String("jwt-issuer", service.DefaultIssuer, "issuer of the tokens the relay mints"),
		audience: fs.String("jwt-audience", service.DefaultAudience, "audience every token must carry"),
	}
}

// addStoreFlag declares --store, the relay's PostgreSQL database, for the
// commands that open the store.
func addStoreFlag(fs *flagSet) *string {
	return fs.String("store", "", "PostgreSQL database of the relay, a postgres:// or postgresql:// URL (keep its password out of the process list: in this variable, or in PGPASSWORD); empty keeps the store in SQLite in --data")
}

// checkStore refuses a --store that is not a store, without quoting it.
func checkStore(storeURL string) error {
	if err := store.CheckTarget(storeURL); err != nil {
		return fmt.Errorf("--store: %w", err)
	}
	return nil
}

// serveFlags are the flags of the serve command.
type serveFlags struct {
	data                          dataFlags
	store                         *string
	replicaAddr                   *string
	replicaIdle                   *time.Duration
	addr, publicURL               *string
	appsAddr, appsOrigin          *string
	demo, demoHost                *bool
	origins, hostKeys, hostIssuer *string
	embedOrigins                  *string
	sessionTTL                    *time.Duration
	user                          *string
	askTimeout                    *time.Duration
	stdioConfig                   *string
	callTimeout                   *time.Duration
	maxResult                     *int
	allowLoopback                 *bool
	oauth                         oauthFlags
	signIn                        signInFlags
	model                         modelFlags
	chatSteps                     *int
	logLevel, logFormat           *string
	metricsAddr                   *string
	catalog                       *string
}

// addServeFlags declares the serve command's flags, in the order of its
// help (a bad $SWITCHBOARD_* value is reported for the first such flag).
func addServeFlags(fs *flagSet) *serveFlags {
	f := &serveFlags{data: addDataFlags(fs), store: addStoreFlag(fs)}
	f.replicaAddr = fs.String("replica-addr", "", "make the relay one of several replicas on the --store database: the internal address (host:port, reachable by every replica and by nothing else) it listens on for the requests other replicas forward to it")
	f.replicaIdle = fs.Duration("replica-idle", replica.DefaultIdleAfter, "with --replica-addr, how long the replica keeps a user nobody uses before another may take them")
	f.addr = fs.String("addr", "127.0.0.1:8080", "address to listen on (loopback by default; anything else is an explicit choice)")
	f.publicURL = fs.String("public-url", "", "URL at which people reach the relay (default http://ADDR); its origin may open the WebSocket, and an https one makes the session cookie Secure (behind a TLS reverse proxy)")
	f.appsAddr = fs.String("apps-addr", "127.0.0.1:0", "address the MCP Apps sandbox (servers' views) listens on: an origin other than the dashboard's (loopback and an ephemeral port by default)")
	f.appsOrigin = fs.String("apps-origin", "", "public origin of the MCP Apps sandbox, when a proxy forwards it to --apps-addr (default http://localhost:PORT, or http://127.0.0.1:PORT when the dashboard is on localhost; a relay on a non-loopback URL needs it for Apps)")
	f.demo = fs.Bool("demo", false, "also run a demo MCP server and register it for the local user")
	f.demoHost = fs.Bool("demo-host", false, "also serve an example site on another loopback origin (http://localhost:PORT) that embeds the dashboard with its own users' tokens")
	f.origins = fs.String("allowed-origins", "", "comma-separated origins, besides the relay's own, allowed to open the WebSocket")
	f.hostKeys = fs.String("host-keys", "", "PEM or JWKS file with the public keys of a site that embeds the dashboard")
	f.hostIssuer = fs.String("host-issuer", "", "issuer of the tokens that site mints")
	f.embedOrigins = fs.String("embed-origins", "", "comma-separated origins of the sites allowed to frame the embedded dashboard (/embed, loaded by /embed.js)")
	f.sessionTTL = fs.Duration("session-ttl", service.DefaultSessionTTL, "lifetime of a browser session after login")
	f.user = fs.String("user", service.DefaultLocalUser, "user id of the local login")
	f.askTimeout = fs.Duration("ask-timeout", broker.DefaultTimeout, "how long a server's question (elicitation, sampling) waits for an answer before the relay answers cancel (sampling: an error); keep it under the servers' request timeout")
	f.stdioConfig = fs.String("stdio-config", "", "JSON file of stdio MCP servers (mcpServers layout: command, args, env, cwd) that every user gets a process of; the child's environment is its env plus PATH and HOME")
	f.catalog = fs.String("catalog", "", "JSON file of the servers offered to every user under Add server (name, url, transport, description, auth); changes to it are picked up without a restart")
	f.callTimeout = fs.Duration("call-timeout", conn.DefaultCallTimeout, "how long the relay waits for a server to answer one call (tool, prompt, read) before it fails the call as timed out")
	f.maxResult = fs.Int("max-result-bytes", wire.MaxResultBytes, fmt.Sprintf("largest result of one call, in bytes of JSON, the relay passes on (%d to %d)", minResultBytes, maxResultBytes))
	f.allowLoopback = fs.Bool("allow-loopback", true, "allow MCP servers on loopback addresses (turn off for a hosted relay)")
	f.oauth = addOAuthFlags(fs)
	f.signIn = addSignInFlags(fs)
	f.chatSteps = fs.Int("chat-steps", wire.DefaultChatSteps, "most model requests of one chat turn; a turn whose model keeps calling tools stops there with a message")
	f.model = addModelFlags(fs)
	f.logLevel = fs.String("log-level", "info", "debug, info, warn or error")
	f.logFormat = fs.String("log-format", "text", "text (key=value lines) or json (one JSON object a line)")
	f.metricsAddr = fs.String("metrics-addr", "", "address of a separate listener serving Prometheus metrics at /metrics (off when empty; for example 127.0.0.1:9090)")
	return f
}

// serveSettings is what serve reads from its flags before it listens: the
// logger, the pre-registered OAuth clients and the models.
type serveSettings struct {
	logger       *slog.Logger
	oauthClients []oauth.Credentials
	models       []models.Spec
	signIn       *signin.Settings
}

// settings checks the store, limits and log level given and reads the
// files (and the environment) that the OAuth and model flags point at.
func (f *serveFlags) settings() (serveSettings, error) {
	if err := checkStore(*f.store); err != nil {
		return serveSettings{}, err
	}
	if err := checkLimits(*f.callTimeout, *f.maxResult); err != nil {
		return serveSettings{}, err
	}
	logger, err := newLogger(os.Stderr, *f.logLevel, *f.logFormat)
	if err != nil {
		return serveSettings{}, err
	}
	slog.SetDefault(logger)
	oauthClients, err := f.oauth.clients()
	if err != nil {
		return serveSettings{}, err
	}
	specs, err := f.model.models(logger)
	if err != nil {
		return serveSettings{}, err
	}
	signIn, err := f.signIn.settings()
	if err != nil {
		return serveSettings{}, err
	}
	return serveSettings{logger: logger, oauthClients: oauthClients, models: specs, signIn: signIn}, nil
}

func serve(args []string) error {
	fs := newFlagSet("serve")
	f := addServeFlags(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	set, err := f.settings()
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopTracing, err := tracing.Setup(ctx)
	if err != nil {
		return err
	}
	defer flushTraces(stopTracing, set.logger)
	_, stopMetrics, err := serveMetrics(*f.metricsAddr, set.logger)
	if err != nil {
		return err
	}
	defer stopMetrics()
	ln, base, hosts, err := listen(*f.addr, *f.publicURL)
	if err != nil {
		return err
	}
	dh, demoUsers, err := f.setUpDemoHost(base)
	if err != nil {
		ln.Close()
		return err
	}
	if dh != nil {
		defer dh.ln.Close()
	}
	appsLn, appsOrigin, err := listenApps(*f.appsAddr, *f.appsOrigin, base, set.logger)
	if err != nil {
		ln.Close()
		return err
	}
	if appsLn != nil {
		defer appsLn.Close()
	}
	replicaLn, err := listenReplica(*f.replicaAddr)
	if err != nil {
		ln.Close()
		return err
	}
	cfg := f.serviceConfig(set, base, hosts, demoUsers)
	cfg.AppsOrigin = appsOrigin
	svc, err := service.New(ctx, cfg)
	if err != nil {
		ln.Close()
		if replicaLn != nil {
			replicaLn.Close()
		}
		return err
	}
	defer svc.Close()
	if replicaLn != nil {
		internal := &http.Server{Handler: svc.InternalHandler(), ReadHeaderTimeout: 10 * time.Second}
		go internal.Serve(replicaLn)
		defer internal.Close()
		set.logger.Info("replica listening for the other replicas", "addr", *f.replicaAddr)
	}
	if appsLn != nil {
		appsSrv := &http.Server{Handler: svc.AppsHandler(), ReadHeaderTimeout: 10 * time.Second}
		go appsSrv.Serve(appsLn)
		defer appsSrv.Close()
		set.logger.Info("MCP Apps sandbox listening", "addr", appsLn.Addr().String(), "origin", appsOrigin)
	}
	return serveUntilStopped(ctx, svc, ln, base, dh, set.logger)
}

// listenReplica listens at a replica's internal address, which the other
// replicas are told, so it must name a host they can reach; nil without one.
func listenReplica(addr string) (net.Listener, error) {
	if addr == "" {
		return nil, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "0" || port == "" {
		return nil, fmt.Errorf("--replica-addr %q: want host:port with a fixed port, reachable by the other replicas", addr)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		return nil, fmt.Errorf("--replica-addr %q: name the address the other replicas reach, not every interface", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen for the other replicas (--replica-addr): %w", err)
	}
	return ln, nil
}

// listenApps listens for the MCP Apps sandbox and works out its origin:
// origin when given, else http://localhost:PORT for a dashboard on
// 127.0.0.1 and http://127.0.0.1:PORT for one on another loopback name, so
// that the two are different sites. A relay reached on a non-loopback URL
// without origin has Apps off (nil listener, no origin), and says so.
func listenApps(addr, origin, base string, logger *slog.Logger) (net.Listener, string, error) {
	origin = strings.TrimRight(origin, "/")
	host := ""
	if origin == "" {
		u, err := url.Parse(base)
		if err != nil {
			return nil, "", fmt.Errorf("--public-url %q: not an absolute URL", base)
		}
		host = u.Hostname()
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			logger.Warn("MCP Apps are off: the relay is reached on a non-loopback URL and no --apps-origin is set; servers' views are shown as their raw results", "public_url", base)
			return nil, "", nil
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("listen for the Apps sandbox (--apps-addr): %w", err)
	}
	if origin != "" {
		return ln, origin, nil
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	if host == "127.0.0.1" {
		return ln, "http://localhost:" + port, nil
	}
	return ln, "http://127.0.0.1:" + port, nil
}

// listen listens on addr and works out the relay's base URL (publicURL
// without a trailing slash, or http://ADDR) and the Host names it answers to.
func listen(addr, publicURL string) (ln net.Listener, base string, hosts []string, err error) {
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		return nil, "", nil, fmt.Errorf("listen: %w", err)
	}
	base = strings.TrimRight(publicURL, "/")
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	hosts, err = allowedHosts(base, ln.Addr())
	if err != nil {
		ln.Close()
		return nil, "", nil, err
	}
	return ln, base, hosts, nil
}

// setUpDemoHost starts the example site of --demo-host, when it is on, and
// points the host keys, the host issuer and the embed origins at it. It
// returns the site (nil when --demo-host is off) and the site's users who
// get the demo server.
func (f *serveFlags) setUpDemoHost(base string) (*demoHost, []string, error) {
	if !*f.demoHost {
		return nil, nil, nil
	}
	if *f.hostKeys != "" || *f.hostIssuer != "" {
		return nil, nil, errors.New("--demo-host brings its own host keys and issuer: drop --host-keys and --host-issuer")
	}
	dh, err := startDemoHost(*f.data.data, base, *f.data.audience)
	if err != nil {
		return nil, nil, err
	}
	*f.hostKeys, *f.hostIssuer = dh.keyFile, demohost.Issuer
	*f.embedOrigins += "," + dh.origin
	return dh, demoHostUsers, nil
}

// serviceConfig is the relay service's configuration: the flags, the
// settings read from them, and what serve worked out when it started
// listening (base URL, Host names) and the example site (its users).
func (f *serveFlags) serviceConfig(set serveSettings, base string, hosts, demoUsers []string) service.Config {
	return service.Config{
		DataDir:        *f.data.data,
		Store:          *f.store,
		ReplicaAddr:    *f.replicaAddr,
		ReplicaIdle:    *f.replicaIdle,
		Demo:           *f.demo,
		DemoUsers:      demoUsers,
		AllowedOrigins: splitList(*f.origins),
		AllowedHosts:   hosts,
		Issuer:         *f.data.issuer,
		Audience:       *f.data.audience,
		HostKeysFile:   *f.hostKeys,
		HostIssuer:     *f.hostIssuer,
		EmbedOrigins:   splitList(*f.embedOrigins),
		SessionTTL:     *f.sessionTTL,
		LocalUser:      *f.user,
		AllowLoopback:  *f.allowLoopback,
		AskTimeout:     *f.askTimeout,
		CallTimeout:    *f.callTimeout,
		MaxResultBytes: *f.maxResult,
		Logger:         set.logger,

		StdioConfigFile: *f.stdioConfig,
		CatalogFile:     *f.catalog,

		Models:        set.models,
		SamplingModel: *f.model.sampling,
		ChatSteps:     *f.chatSteps,

		PublicURL:              base,
		OAuthClientMetadataURL: *f.oauth.metadataURL,
		OAuthSuccessURL:        *f.oauth.successURL,
		OAuthErrorURL:          *f.oauth.errorURL,
		OAuthClients:           set.oauthClients,
		SignIn:                 set.signIn,
	}
}

// serveUntilStopped serves svc on ln (and the example site dh, if any),
// prints the one-time login link, and runs until the server fails or ctx
// ends (a signal); then it finishes the requests in flight.
func serveUntilStopped(ctx context.Context, svc *service.Service, ln net.Listener, base string, dh *demoHost, logger *slog.Logger) error {
	loginURL, err := svc.LoginURL(ctx, base)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: svc.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	logger.Info("switchboard listening", "addr", ln.Addr().String())
	fmt.Fprintf(os.Stdout, "\nSwitchboard is running. Open this one-time login link (valid %s):\n\n  %s\n\n",
		service.LoginCodeTTL, loginURL)
	if dh != nil {
		go func() {
			if err := dh.serve(); err != nil {
				logger.Error("demo host stopped", "err", err)
			}
		}()
		fmt.Fprintf(os.Stdout, "An example site embedding the dashboard (add ?user=bob for another user, ?view=questions for the questions panel):\n\n  %s/\n\n", dh.origin)
	}

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	// Finish the HTTP requests in flight (a login, an OAuth callback) while
	// the store is open; Shutdown does not wait for WebSockets, which the
	// deferred svc.Close (in serve) then ends, with the connections and the
	// store.
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newLogger returns a logger writing to w at level, in format (text or json).
func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q: use debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("log format %q: use text or json", format)
}

// allowedHosts are the Host names the relay answers to besides loopback: the
// public URL's host and the listen address when it is a specific one.
func allowedHosts(publicURL string, addr net.Addr) ([]string, error) {
	u, err := url.Parse(publicURL)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("--public-url %q: not an absolute URL", publicURL)
	}
	hosts := []string{u.Hostname()}
	if tcp, ok := addr.(*net.TCPAddr); ok && !tcp.IP.IsUnspecified() {
		hosts = append(hosts, tcp.IP.String())
	}
	return hosts, nil
}
