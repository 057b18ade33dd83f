package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/conformance"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
)

// Environment the conformance suite sets for its client.
const (
	envScenario = "MCP_CONFORMANCE_SCENARIO"
	envContext  = "MCP_CONFORMANCE_CONTEXT"
)

// defaultScenarioTimeout ends a scenario a little before the suite's own
// 30-second limit, so that the reason is printed.
const defaultScenarioTimeout = 25 * time.Second

// conformanceClient runs one scenario of the MCP conformance suite:
// switchboard conformance-client [flags] URL, with the scenario in
// $MCP_CONFORMANCE_SCENARIO. The suite's servers listen on loopback, which
// the outbound guard allows here.
func conformanceClient(args []string) error {
	fs := flag.NewFlagSet("conformance-client", flag.ContinueOnError)
	timeout := fs.Duration("timeout", defaultScenarioTimeout, "how long one scenario may take")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: switchboard conformance-client [flags] URL\n\n"+
			"Runs the scenario named by $%s against the server at URL.\nScenarios: %v\n\nflags:\n",
			envScenario, conformance.Scenarios())
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("conformance-client: the server URL is missing")
	}
	logger, err := newLogger(os.Stderr, *logLevel, "text")
	if err != nil {
		return err
	}
	cctx, err := conformance.ParseContext(os.Getenv(envContext))
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	guard := netguard.Policy{AllowLoopback: true}
	scenario := os.Getenv(envScenario)
	err = conformance.Run(ctx, conformance.Config{
		Scenario:   scenario,
		ServerURL:  fs.Arg(fs.NArg() - 1), // the suite appends the URL last
		Context:    cctx,
		HTTPClient: guard.Client(0),
		Logger:     logger,
	})
	if err != nil {
		return fmt.Errorf("scenario %q: %w", scenario, err)
	}
	logger.Info("scenario done", "scenario", scenario)
	return nil
}
