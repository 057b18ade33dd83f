// Package demo runs a small MCP server to try Switchboard with: a few tools
// (echo, greet, which asks the person's name with a form, add, time,
// slow_count with progress, toggle_bonus_tool, which makes the tool list
// change on demand), a prompt, two resources and a resource template. It is a go-sdk server on Streamable HTTP, stateless so that it
// speaks the 2026-07-28 protocol (list changes reach clients through
// subscriptions/listen) as well as the older ones, and it listens on
// 127.0.0.1 only.
package demo

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Identity of the demo server.
const (
	ServerName    = "switchboard-demo"
	serverTitle   = "Switchboard demo"
	serverVersion = "0.1.0"
	endpointPath  = "/mcp"
	instructions  = "A demo server. Try echo and add, answer greet's question, watch slow_count report progress, " +
		"and call toggle_bonus_tool to make the tool list change."
)

// Start serves the demo server on addr (a loopback host:port; empty for a
// free 127.0.0.1 port) until stop is called or ctx is done. url is its MCP
// endpoint.
func Start(ctx context.Context, addr string) (url string, stop func(), err error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if host, _, err := net.SplitHostPort(addr); err != nil || net.ParseIP(host) == nil || !net.ParseIP(host).IsLoopback() {
		return "", nil, fmt.Errorf("demo server: %q is not a loopback address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("demo server: listen: %w", err)
	}
	server := newServer()
	mux := http.NewServeMux()
	mux.Handle(endpointPath, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true}))
	hs := &http.Server{Handler: mux}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = hs.Serve(ln) // returns http.ErrServerClosed on stop
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			hs.Close() // also ends the long-lived subscription streams
			<-served
		})
	}
	context.AfterFunc(ctx, stop)
	return "http://" + ln.Addr().String() + endpointPath, stop, nil
}

// newServer builds the demo server with its tools, prompt and resources.
func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: serverTitle, Version: serverVersion},
		&mcp.ServerOptions{Instructions: instructions})
	addTools(server)
	addPrompts(server)
	addResources(server)
	return server
}
