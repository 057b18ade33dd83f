package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/models"
	"github.com/switchboard-mcp/switchboard/relay/service"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// childArg is the first argument that makes this binary the relay under test.
const childArg = "relay"

// Control routes of the child relay, on a listener of their own.
const (
	controlLogin    = "/login"    // GET: a one-time login URL of the local user
	controlToken    = "/token"    // GET: a token of the local user
	controlMem      = "/mem"      // GET: heap figures after a GC, as memStats
	controlAgentKey = "/agentkey" // POST: a new agent key of the local user, all servers
)

// childHello is the line the child prints once it listens.
type childHello struct {
	Addr    string `json:"addr"`    // the relay, host:port
	Control string `json:"control"` // the control routes, host:port
}

// memStats are the child's memory figures after a forced GC, in bytes.
type memStats struct {
	HeapAlloc  uint64 `json:"heapAlloc"` // live heap objects
	HeapInuse  uint64 `json:"heapInuse"`
	StackInuse uint64 `json:"stackInuse"`
	Goroutines int    `json:"goroutines"`
}

// total is what a connection costs the relay: live heap spans and stacks.
func (m memStats) total() uint64 { return m.HeapInuse + m.StackInuse }

// benchModel is the name of the model the child relay is given, when it
// is given one: OpenAI's chat completions at the harness's model fixture.
const benchModel = "fixture"

// runChild serves a relay with an empty data directory until stdin closes;
// with a modelURL, its one model is there.
func runChild(dataDir, modelURL string) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	cfg := service.Config{
		DataDir: dataDir, AllowLoopback: true, Logger: logger,
		AgentRate: 1e6, AgentBurst: 1e6, // the gateway figure calls back to back
	}
	if modelURL != "" {
		cfg.Models = []models.Spec{{Name: benchModel, Provider: llm.OpenAI, URL: modelURL, Model: modelfixture.DefaultModel}}
	}
	svc, err := service.New(context.Background(), cfg)
	if err != nil {
		return err
	}
	defer svc.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	cl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	srv := &http.Server{Handler: svc.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)

	mux := http.NewServeMux()
	mux.HandleFunc("GET "+controlLogin, func(w http.ResponseWriter, r *http.Request) {
		u, err := svc.LoginURL(r.Context(), base)
		answer(w, u, err)
	})
	mux.HandleFunc("GET "+controlToken, func(w http.ResponseWriter, r *http.Request) {
		tok, err := svc.Mint(service.DefaultLocalUser, time.Hour)
		answer(w, tok, err)
	})
	mux.HandleFunc("GET "+controlMem, func(w http.ResponseWriter, r *http.Request) {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b, err := json.Marshal(memStats{HeapAlloc: ms.HeapAlloc, HeapInuse: ms.HeapInuse, StackInuse: ms.StackInuse, Goroutines: runtime.NumGoroutine()})
		answer(w, string(b), err)
	})
	mux.HandleFunc("POST "+controlAgentKey, func(w http.ResponseWriter, r *http.Request) {
		res, err := svc.AgentKeys().CreateKey(r.Context(), service.DefaultLocalUser, wire.CreateAgentKeyArgs{Name: "bench"})
		answer(w, res.Secret, err)
	})
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)  // for finding where a figure's time goes
	mux.Handle("GET /debug/pprof/heap", pprof.Handler("heap")) // and where the soak's memory goes
	mux.Handle("GET /debug/pprof/goroutine", pprof.Handler("goroutine"))
	csrv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go csrv.Serve(cl)

	hello, _ := json.Marshal(childHello{Addr: ln.Addr().String(), Control: cl.Addr().String()})
	fmt.Println(string(hello))
	io.Copy(io.Discard, bufio.NewReader(os.Stdin)) // the parent holds stdin open while it needs us
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	csrv.Shutdown(ctx)
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// answer writes s as plain text, or the error with status 500.
func answer(w http.ResponseWriter, s string, err error) {
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, s)
}
