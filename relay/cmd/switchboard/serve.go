package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/demohost"
	"github.com/switchboard-mcp/switchboard/relay/service"
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

func serve(args []string) error {
	fs := newFlagSet("serve")
	df := addDataFlags(fs)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (loopback by default; anything else is an explicit choice)")
	publicURL := fs.String("public-url", "", "URL at which people reach the relay (default http://ADDR); its origin may open the WebSocket, and an https one makes the session cookie Secure (behind a TLS reverse proxy)")
	demo := fs.Bool("demo", false, "also run a demo MCP server and register it for the local user")
	demoHostOn := fs.Bool("demo-host", false, "also serve an example site on another loopback origin (http://localhost:PORT) that embeds the dashboard with its own users' tokens")
	origins := fs.String("allowed-origins", "", "comma-separated origins, besides the relay's own, allowed to open the WebSocket")
	hostKeys := fs.String("host-keys", "", "PEM or JWKS file with the public keys of a site that embeds the dashboard")
	hostIssuer := fs.String("host-issuer", "", "issuer of the tokens that site mints")
	embedOrigins := fs.String("embed-origins", "", "comma-separated origins of the sites allowed to frame the embedded dashboard (/embed, loaded by /embed.js)")
	sessionTTL := fs.Duration("session-ttl", service.DefaultSessionTTL, "lifetime of a browser session after login")
	user := fs.String("user", service.DefaultLocalUser, "user id of the local login")
	askTimeout := fs.Duration("ask-timeout", broker.DefaultTimeout, "how long a server's question (elicitation, sampling) waits for an answer before the relay answers cancel (sampling: an error); keep it under the servers' request timeout")
	stdioConfig := fs.String("stdio-config", "", "JSON file of stdio MCP servers (mcpServers layout: command, args, env, cwd) that every user gets a process of; the child's environment is its env plus PATH and HOME")
	callTimeout := fs.Duration("call-timeout", conn.DefaultCallTimeout, "how long the relay waits for a server to answer one call (tool, prompt, read) before it fails the call as timed out")
	maxResult := fs.Int("max-result-bytes", wire.MaxResultBytes, fmt.Sprintf("largest result of one call, in bytes of JSON, the relay passes on (%d to %d)", minResultBytes, maxResultBytes))
	loopback := fs.Bool("allow-loopback", true, "allow MCP servers on loopback addresses (turn off for a hosted relay)")
	of := addOAuthFlags(fs)
	mf := addModelFlags(fs)
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := checkLimits(*callTimeout, *maxResult); err != nil {
		return err
	}
	logger, err := newLogger(*logLevel)
	if err != nil {
		return err
	}
	slog.SetDefault(logger)
	oauthClients, err := of.clients()
	if err != nil {
		return err
	}
	modelKey, err := mf.key()
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	base := strings.TrimRight(*publicURL, "/")
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	hosts, err := allowedHosts(base, ln.Addr())
	if err != nil {
		ln.Close()
		return err
	}
	var (
		dh        *demoHost
		demoUsers []string
	)
	if *demoHostOn {
		if *hostKeys != "" || *hostIssuer != "" {
			ln.Close()
			return errors.New("--demo-host brings its own host keys and issuer: drop --host-keys and --host-issuer")
		}
		if dh, err = startDemoHost(*df.data, base, *df.audience); err != nil {
			ln.Close()
			return err
		}
		defer dh.ln.Close()
		*hostKeys, *hostIssuer = dh.keyFile, demohost.Issuer
		*embedOrigins += "," + dh.origin
		demoUsers = demoHostUsers
	}
	svc, err := service.New(ctx, service.Config{
		DataDir:        *df.data,
		Demo:           *demo,
		DemoUsers:      demoUsers,
		AllowedOrigins: splitList(*origins),
		AllowedHosts:   hosts,
		Issuer:         *df.issuer,
		Audience:       *df.audience,
		HostKeysFile:   *hostKeys,
		HostIssuer:     *hostIssuer,
		EmbedOrigins:   splitList(*embedOrigins),
		SessionTTL:     *sessionTTL,
		LocalUser:      *user,
		AllowLoopback:  *loopback,
		AskTimeout:     *askTimeout,
		CallTimeout:    *callTimeout,
		MaxResultBytes: *maxResult,
		Logger:         logger,

		StdioConfigFile: *stdioConfig,

		ModelURL:  *mf.url,
		ModelName: *mf.name,
		ModelKey:  modelKey,

		PublicURL:              base,
		OAuthClientMetadataURL: *of.metadataURL,
		OAuthSuccessURL:        *of.successURL,
		OAuthErrorURL:          *of.errorURL,
		OAuthClients:           oauthClients,
	})
	if err != nil {
		ln.Close()
		return err
	}
	defer svc.Close()

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
	// deferred svc.Close then ends, with the connections and the store.
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func newLogger(level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q: use debug, info, warn or error", level)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l})), nil
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
