package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/metrics"
)

// serveMetrics serves /metrics on its own listener at addr (nothing when
// addr is empty) and returns the address it listens on and the function
// that stops it.
func serveMetrics(addr string, logger *slog.Logger) (at net.Addr, stop func(), err error) {
	if addr == "" {
		return nil, func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen for metrics (--metrics-addr): %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	logger.Info("metrics listening", "addr", ln.Addr().String())
	return ln.Addr(), func() { srv.Close() }, nil
}

// flushTraces sends the spans not yet exported and stops tracing.
func flushTraces(stop func(context.Context) error, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := stop(ctx); err != nil {
		logger.Warn("flush traces", "err", err)
	}
}
