package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"time"
)

// inspectorVersion is the MCP Inspector bench/inspector/package-lock.json pins.
const inspectorVersion = "2.12.0"

// inspectorName names Inspector in the table.
const inspectorName = "MCP Inspector " + inspectorVersion

// inspectorURL finds the address with the API token the launcher prints.
var inspectorURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+/?\?MCP_INSPECTOR_API_TOKEN=[0-9a-f]+`)

// inspector is MCP Inspector's web UI, a child process on loopback ports.
type inspector struct {
	cmd  *exec.Cmd
	home string
	url  string // the page, with its API token
}

// startInspector runs `inspector --web` with a fresh home directory on free
// loopback ports (it binds 127.0.0.1 unless told otherwise).
func startInspector(launcher string) (*inspector, error) {
	if _, err := os.Stat(launcher); err != nil {
		return nil, fmt.Errorf("MCP Inspector is not installed (npm ci --prefix bench/inspector): %w", err)
	}
	home, err := os.MkdirTemp("", "switchboard-bench-inspector-")
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("node", launcher, "--web")
	cmd.Env = append(os.Environ(),
		"HOME="+home,
		"CLIENT_PORT="+strconv.Itoa(ports[0]),
		"MCP_SANDBOX_PORT="+strconv.Itoa(ports[1]),
		"MCP_APP_ORIGIN_PORT="+strconv.Itoa(ports[2]),
		"MCP_AUTO_OPEN_ENABLED=false",
		"MCP_INSPECTOR_SECRET_STORE=memory",
	)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start MCP Inspector: %w", err)
	}
	in := &inspector{cmd: cmd, home: home}
	found := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			if u := inspectorURL.FindString(s.Text()); u != "" {
				found <- u
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case in.url = <-found:
		return in, nil
	case <-time.After(60 * time.Second):
		in.stop()
		return nil, fmt.Errorf("MCP Inspector did not print its address within a minute")
	}
}

func (in *inspector) stop() {
	in.cmd.Process.Kill()
	in.cmd.Wait()
	os.RemoveAll(in.home)
}

// freePorts returns n loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
