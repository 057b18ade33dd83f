package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"time"

	"github.com/switchboard-mcp/switchboard/bench/hop"
	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/models"
	"github.com/switchboard-mcp/switchboard/relay/service"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// childArg is the first argument that makes this binary the relay under
// test; hopArg, followed by an MCP server's URL, makes it the floor in
// front of that server (package hop).
const (
	childArg = "relay"
	hopArg   = "hop"
)

// Control routes of the child relay, on a listener of their own.
const (
	controlLogin    = "/login"    // GET: a one-time login URL of the local user
	controlToken    = "/token"    // GET: a token of the local user (or ?user=)
	controlMem      = "/mem"      // GET: heap figures after a GC, as memStats
	controlAgentKey = "/agentkey" // POST: a new agent key of the local user (or ?user=), all servers
)

// childHello is the line the child prints once it listens.
type childHello struct {
	Addr     string `json:"addr"`               // the relay, host:port
	Control  string `json:"control"`            // the control routes, host:port
	Internal string `json:"internal,omitempty"` // a replica's internal address, host:port
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

// childOptions is what the parent asks of the child relay: the flags after
// childArg.
type childOptions struct {
	dataDir  string // -data: the relay's data directory
	modelURL string // -model: one model (benchModel) at this URL; none when ""
	// store (-store) is a PostgreSQL store: with it the child is a replica,
	// its internal address on a listener of its own.
	store string
}

// args are the child's command line.
func (o childOptions) args() []string {
	args := []string{childArg, "-data", o.dataDir}
	if o.modelURL != "" {
		args = append(args, "-model", o.modelURL)
	}
	if o.store != "" {
		args = append(args, "-store", o.store)
	}
	return args
}

// parseChildArgs reads the flags after childArg.
func parseChildArgs(args []string) (childOptions, error) {
	var o childOptions
	fs := flag.NewFlagSet(childArg, flag.ContinueOnError)
	fs.StringVar(&o.dataDir, "data", "", "the relay's data directory")
	fs.StringVar(&o.modelURL, "model", "", "one model at this URL")
	fs.StringVar(&o.store, "store", "", "a PostgreSQL store; the relay is a replica")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.dataDir == "" || fs.NArg() > 0 {
		return o, fmt.Errorf("usage: %s -data DIR [-model URL] [-store URL]", childArg)
	}
	return o, nil
}

// runChild serves a relay with an empty data directory until stdin closes:
// with a model URL its one model is there; with a store, it is a replica.
func runChild(o childOptions) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	cfg := service.Config{
		DataDir: o.dataDir, Store: o.store, AllowLoopback: true, Logger: logger,
		AgentRate: 1e6, AgentBurst: 1e6, // the gateway figure calls back to back
	}
	if o.modelURL != "" {
		cfg.Models = []models.Spec{{Name: benchModel, Provider: llm.OpenAI, URL: o.modelURL, Model: modelfixture.DefaultModel}}
	}
	var internal net.Listener
	if o.store != "" { // listening first gives the replica its address
		var err error
		if internal, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return err
		}
		cfg.ReplicaAddr = internal.Addr().String()
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
	hello := childHello{Addr: ln.Addr().String(), Control: cl.Addr().String()}
	srv := &http.Server{Handler: svc.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	csrv := &http.Server{Handler: controlRoutes(svc, "http://"+hello.Addr), ReadHeaderTimeout: 5 * time.Second}
	go csrv.Serve(cl)
	if internal != nil {
		hello.Internal = cfg.ReplicaAddr
		isrv := &http.Server{Handler: svc.InternalHandler(), ReadHeaderTimeout: 5 * time.Second}
		go isrv.Serve(internal)
		defer isrv.Close()
	}

	line, _ := json.Marshal(hello)
	fmt.Println(string(line))
	io.Copy(io.Discard, bufio.NewReader(os.Stdin)) // the parent holds stdin open while it needs us
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	csrv.Shutdown(ctx)
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// controlRoutes are the harness's routes into the child relay at base.
// The token and the agent key are the local user's, or those of the user
// the query's user names.
func controlRoutes(svc *service.Service, base string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+controlLogin, func(w http.ResponseWriter, r *http.Request) {
		u, err := svc.LoginURL(r.Context(), base)
		answer(w, u, err)
	})
	mux.HandleFunc("GET "+controlToken, func(w http.ResponseWriter, r *http.Request) {
		tok, err := svc.Mint(userParam(r), time.Hour)
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
		res, err := svc.AgentKeys().CreateKey(r.Context(), userParam(r), wire.CreateAgentKeyArgs{Name: "bench"})
		answer(w, res.Secret, err)
	})
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)  // for finding where a figure's time goes
	mux.Handle("GET /debug/pprof/heap", pprof.Handler("heap")) // and where the soak's memory goes
	mux.Handle("GET /debug/pprof/goroutine", pprof.Handler("goroutine"))
	return mux
}

// userParam is the user a control request names (?user=), by default the
// local user.
func userParam(r *http.Request) string {
	if u := r.URL.Query().Get("user"); u != "" {
		return u
	}
	return service.DefaultLocalUser
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

// runHop serves the floor (package hop) in front of the MCP server at
// upstream until stdin closes, having printed its childHello.
func runHop(upstream string) error {
	h, closeUp, err := hop.Handler(context.Background(), upstream)
	if err != nil {
		return err
	}
	defer closeUp()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	hello, _ := json.Marshal(childHello{Addr: ln.Addr().String()})
	fmt.Println(string(hello))
	io.Copy(io.Discard, bufio.NewReader(os.Stdin)) // the parent holds stdin open while it needs us
	return nil
}
