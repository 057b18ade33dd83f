package main

import (
	"context"
	"fmt"

	"github.com/switchboard-mcp/switchboard/relay/demo"
)

// bench is a relay under test with one fixture registered and ready, and a
// Go dashboard attached.
type bench struct {
	relay    *relayProc
	fixture  *mcpFixture
	dash     *socket
	serverID string
	token    string
}

// setUp starts a relay and a fixture with tools filler tools, registers it
// and waits until it is ready.
func setUp(ctx context.Context, tools int) (*bench, error) {
	r, err := startRelay()
	if err != nil {
		return nil, err
	}
	b := &bench{relay: r}
	if err := b.init(ctx, tools); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *bench) init(ctx context.Context, tools int) error {
	var err error
	if b.fixture, err = startFixture(tools); err != nil {
		return err
	}
	if b.token, err = b.relay.token(); err != nil {
		return err
	}
	if b.dash, err = dialSocket(ctx, b.relay, b.token); err != nil {
		return fmt.Errorf("dashboard socket: %w", err)
	}
	if b.serverID, err = b.dash.addServer(ctx, "fixture", b.fixture.URL()); err != nil {
		return err
	}
	return b.dash.waitReady(ctx, b.serverID)
}

func (b *bench) close() {
	if b.dash != nil {
		b.dash.close()
	}
	b.relay.stop()
	if b.fixture != nil {
		b.fixture.Stop()
	}
}

// addDemo starts the demo server, adds it for the bench's user as name and
// waits until it is ready; stop ends it.
func (b *bench) addDemo(ctx context.Context, name string) (url string, stop func(), err error) {
	url, stop, err = demo.Start(ctx, "")
	if err != nil {
		return "", nil, err
	}
	id, err := b.dash.addServer(ctx, name, url)
	if err == nil {
		err = b.dash.waitReady(ctx, id)
	}
	if err != nil {
		stop()
		return "", nil, err
	}
	return url, stop, nil
}
