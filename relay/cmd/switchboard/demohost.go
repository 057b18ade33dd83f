package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/demohost"
)

// demoHostKeyFile is where --demo-host writes the public key of its site,
// in the data directory, for the relay to verify the site's tokens.
const demoHostKeyFile = "demo-host-key.pem"

// demoHostUsers are the example site's users who get the demo server with --demo.
var demoHostUsers = []string{authn.HostUserPrefix + demohost.DefaultUser, authn.HostUserPrefix + "bob"}

// demoHost is the example site of --demo-host: its listener, its origin
// (localhost, another site than the relay's 127.0.0.1) and its handler.
type demoHost struct {
	ln      net.Listener
	origin  string
	handler http.Handler
	keyFile string
}

// startDemoHost listens on a free loopback port for the example site that
// embeds the relay at relayURL, and writes the site's public key into the
// data directory.
func startDemoHost(dataDir, relayURL, audience string) (*demoHost, error) {
	h, err := demohost.New(demohost.Config{RelayURL: relayURL, Audience: audience})
	if err != nil {
		return nil, err
	}
	pub, err := h.PublicKeyPEM()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	keyFile := filepath.Join(dataDir, demoHostKeyFile)
	if err := os.WriteFile(keyFile, pub, 0o600); err != nil {
		return nil, fmt.Errorf("demo host key: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo host listen: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	return &demoHost{ln: ln, origin: fmt.Sprintf("http://localhost:%d", port), handler: h, keyFile: keyFile}, nil
}

// serve serves the example site until the listener closes.
func (d *demoHost) serve() error {
	srv := &http.Server{Handler: d.handler, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.Serve(d.ln); !errors.Is(err, net.ErrClosed) && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
