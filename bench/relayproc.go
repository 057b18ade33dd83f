package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// childStartTimeout bounds how long the child relay takes to listen.
const childStartTimeout = 30 * time.Second

// relayProc is the relay under test, a child process (or the floor, a
// child too: startHop).
type relayProc struct {
	cmd     *exec.Cmd
	stdin   io.Closer
	hello   childHello
	dataDir string
}

// startRelay starts a child relay with a fresh data directory.
func startRelay() (*relayProc, error) { return startChild(childOptions{}) }

// startRelayWithModel starts a child relay with a fresh data directory
// and, when modelURL is not "", one model at modelURL (benchModel).
func startRelayWithModel(modelURL string) (*relayProc, error) {
	return startChild(childOptions{modelURL: modelURL})
}

// startReplica starts a child relay with a fresh data directory as a
// replica on the PostgreSQL store at storeURL.
func startReplica(storeURL string) (*relayProc, error) {
	return startChild(childOptions{store: storeURL})
}

// startChild starts a child relay as o says, in a fresh data directory.
func startChild(o childOptions) (*relayProc, error) {
	dir, err := os.MkdirTemp("", "switchboard-bench-relay-")
	if err != nil {
		return nil, err
	}
	o.dataDir = dir
	r, err := runSelf(o.args())
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	r.dataDir = dir
	return r, nil
}

// startHop starts the floor (package hop) in front of the MCP server at
// upstream, a child process as the relay is.
func startHop(upstream string) (*relayProc, error) {
	return runSelf([]string{hopArg, upstream})
}

// runSelf runs this binary again with args and waits for the line it prints
// once it listens (a childHello).
func runSelf(args []string) (*relayProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(self, ".test") { // a test binary would run its tests, not the relay
		return nil, fmt.Errorf("the relay child needs the bench command (go run ./bench), not %s", filepath.Base(self))
	}
	cmd := exec.Command(self, args...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := &relayProc{cmd: cmd, stdin: stdin}
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		if s.Scan() {
			line <- s.Text()
		}
		close(line)
		io.Copy(io.Discard, stdout)
	}()
	select {
	case l, ok := <-line:
		if !ok {
			r.stop()
			return nil, fmt.Errorf("child %s exited before it listened", args[0])
		}
		if err := json.Unmarshal([]byte(l), &r.hello); err != nil {
			r.stop()
			return nil, fmt.Errorf("child %s said %q: %w", args[0], l, err)
		}
	case <-time.After(childStartTimeout):
		r.stop()
		return nil, fmt.Errorf("child %s did not listen within %v", args[0], childStartTimeout)
	}
	return r, nil
}

// stop ends the child and removes its data.
func (r *relayProc) stop() {
	r.stdin.Close()
	done := make(chan struct{})
	go func() { r.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		r.cmd.Process.Kill()
		<-done
	}
	os.RemoveAll(r.dataDir)
}

// kill ends the child with SIGKILL, as a crash would: no shutdown, no
// goodbye to PostgreSQL. Then it removes the child's data.
func (r *relayProc) kill() error {
	err := r.cmd.Process.Kill()
	r.cmd.Wait()
	r.stdin.Close()
	os.RemoveAll(r.dataDir)
	return err
}

// URL is the relay's address as a person opens it.
func (r *relayProc) URL() string { return "http://" + r.hello.Addr }

// control calls a control route and returns its text.
func (r *relayProc) control(method, path string) (string, error) {
	req, err := http.NewRequest(method, "http://"+r.hello.Control+path, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(b)))
	}
	return string(b), nil
}

func (r *relayProc) loginURL() (string, error) { return r.control(http.MethodGet, controlLogin) }
func (r *relayProc) token() (string, error)    { return r.control(http.MethodGet, controlToken) }
func (r *relayProc) agentKey() (string, error) { return r.control(http.MethodPost, controlAgentKey) }

// tokenOf returns a token of user.
func (r *relayProc) tokenOf(user string) (string, error) {
	return r.control(http.MethodGet, controlToken+"?user="+url.QueryEscape(user))
}

// agentKeyOf returns a new agent key of user, all servers.
func (r *relayProc) agentKeyOf(user string) (string, error) {
	return r.control(http.MethodPost, controlAgentKey+"?user="+url.QueryEscape(user))
}

// mem returns the child's heap figures after a GC.
func (r *relayProc) mem() (memStats, error) {
	s, err := r.control(http.MethodGet, controlMem)
	if err != nil {
		return memStats{}, err
	}
	var m memStats
	return m, json.Unmarshal([]byte(s), &m)
}

// profileDir, when set, receives a CPU profile of the relay per figure.
var profileDir string

// heapProfile writes the child's heap profile (after a GC) into
// profileDir/name.heap; nothing without a profileDir.
func (r *relayProc) heapProfile(name string) error {
	return r.saveProfile("heap?gc=1", name+".heap")
}

// goroutineProfile writes the child's goroutines, counted by stack, as text
// into profileDir/name.goroutines; nothing without a profileDir.
func (r *relayProc) goroutineProfile(name string) error {
	return r.saveProfile("goroutine?debug=1", name+".goroutines")
}

// saveProfile writes the child's /debug/pprof/query into profileDir/file;
// nothing without a profileDir.
func (r *relayProc) saveProfile(query, file string) error {
	if profileDir == "" {
		return nil
	}
	resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/%s", r.hello.Control, query))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	f, err := os.Create(filepath.Join(profileDir, file))
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(f, resp.Body)
	return err
}

// profile records the child's CPU profile over d into profileDir/name.prof,
// in the background; wait returns once it is written.
func (r *relayProc) profile(name string, d time.Duration) (wait func() error) {
	if profileDir == "" {
		return func() error { return nil }
	}
	done := make(chan error, 1)
	go func() {
		resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", r.hello.Control, int(d.Seconds())))
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		f, err := os.Create(filepath.Join(profileDir, name+".prof"))
		if err != nil {
			done <- err
			return
		}
		defer f.Close()
		_, err = io.Copy(f, resp.Body)
		done <- err
	}()
	return func() error { return <-done }
}
