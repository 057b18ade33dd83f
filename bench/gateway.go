package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/bench/hop"
)

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// gatewayFigure compares an agent's call through the relay's /mcp (an agent
// key, the go-sdk client) with a direct go-sdk call, alternating.
func gatewayFigure(ctx context.Context, cfg config) ([]row, error) {
	b, err := setUp(ctx, 0)
	if err != nil {
		return nil, err
	}
	defer b.close()
	direct, err := b.fixture.directClient(ctx)
	if err != nil {
		return nil, err
	}
	defer direct.Close()
	key, err := b.relay.agentKey()
	if err != nil {
		return nil, err
	}
	agent, err := b.agent(ctx, key, "/mcp")
	if err != nil {
		return nil, err
	}
	defer agent.Close()
	h, err := startHop(b.fixture.URL())
	if err != nil {
		return nil, err
	}
	defer h.stop()
	proxied, err := mcp.NewClient(&mcp.Implementation{Name: "bench-agent", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: h.URL() + "/mcp"}, nil)
	if err != nil {
		return nil, fmt.Errorf("the floor's proxy: %w", err)
	}
	defer proxied.Close()
	name := b.serverID + "__" + toolTick
	viaFloor := func() (time.Duration, error) { return timedCall(ctx, proxied, hop.Tool) }
	viaGateway := func() (time.Duration, error) { return timedCall(ctx, agent, name) }
	return againstFloor(ctx, cfg, b, direct, "gateway", "agent call through /mcp", "minimal go-sdk proxy", viaFloor, viaGateway)
}

// agent connects a go-sdk client with the agent key to the relay's endpoint
// path.
func (b *bench) agent(ctx context.Context, key, path string) (*mcp.ClientSession, error) {
	return connectAgent(ctx, b.relay, key, path)
}

// connectAgent connects a go-sdk client with the agent key to the endpoint
// path of relay r.
func connectAgent(ctx context.Context, r *relayProc, key, path string) (*mcp.ClientSession, error) {
	return connectAgentVia(ctx, r, key, path, http.DefaultTransport)
}

// connectAgentVia is connectAgent with the HTTP transport next.
func connectAgentVia(ctx context.Context, r *relayProc, key, path string, next http.RoundTripper) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-agent", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   r.URL() + path,
		HTTPClient: &http.Client{Transport: bearer{token: key, next: next}},
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("agent connect to %s: %w", path, err)
	}
	return cs, nil
}
