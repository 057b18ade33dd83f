// Command agentrelay serves one MCP server through the relay's agent
// endpoint, for the server scenarios of the conformance suite: it registers
// the server at -upstream for a user, waits until it is ready, and serves
// the gateway on -addr, adding an agent key to every request as an agent's
// configuration would (the suite sends none). It prints the URL of the
// server's endpoint (/mcp/s/<id>) on one line, then serves until killed.
// Nobody answers the questions the server asks: they wait for a person,
// for -ask-timeout.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

const (
	user = "conformance"
	key  = "conformance-agent-key"
)

// oneKey knows the harness's key.
type oneKey struct{}

func (oneKey) Authenticate(_ context.Context, bearer string) (gateway.Grant, error) {
	if bearer != key {
		return gateway.Grant{}, gateway.ErrUnauthorized
	}
	return gateway.Grant{User: user, Agent: "conformance suite", KeyID: "conformance"}, nil
}

func main() {
	upstream := flag.String("upstream", "", "the MCP server's URL")
	addr := flag.String("addr", "127.0.0.1:0", "where to serve the gateway")
	askTimeout := flag.Duration("ask-timeout", 2*time.Second, "how long a server's question waits for a person")
	flag.Parse()
	if *upstream == "" {
		log.Fatal("agentrelay: -upstream is required")
	}
	dir, err := os.MkdirTemp("", "agentrelay")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		log.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var m *session.Manager
	m = session.NewManager(st, func(reg store.Server, emit func(wire.Server)) session.Connection {
		asker, modes := m.Asking(reg)
		return conn.Start(conn.Config{ID: reg.ID, Name: reg.Name, URL: reg.URL, Logger: logger, Asker: asker, Modes: modes}, emit)
	}, logger)
	m.SetAskConfig(broker.Config{Timeout: *askTimeout})
	id, err := register(m.Session(user), *upstream)
	if err != nil {
		log.Fatal(err)
	}
	origins, err := authn.NewOriginPolicy(nil) // the relay's own origin, as the relay has it
	if err != nil {
		log.Fatal(err)
	}
	g := gateway.New(gateway.Config{Sessions: m, Auth: oneKey{}, Origins: origins, Logger: logger, Rate: 1000, Burst: 1000})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s%s%s\n", ln.Addr(), gateway.ServerPath, id)
	withKey := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+key)
		g.ServeHTTP(w, r)
	})
	log.Fatal((&http.Server{Handler: withKey, ReadHeaderTimeout: 5 * time.Second}).Serve(ln))
}

// register adds the server and waits until it is ready.
func register(s *session.Session, url string) (string, error) {
	res, err := s.AddServer(context.Background(), "upstream", url)
	if err != nil {
		return "", err
	}
	changed := make(chan struct{}, 1)
	stop := s.Watch(func(string) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer stop()
	deadline := time.After(30 * time.Second)
	for {
		for _, st := range s.Servers() {
			if st.ID == res.ID && st.State == wire.StateReady {
				return res.ID, nil
			}
		}
		select {
		case <-changed:
		case <-deadline:
			return "", fmt.Errorf("the server at %s is not ready after 30s", url)
		}
	}
}
