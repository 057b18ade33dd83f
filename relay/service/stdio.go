package service

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/mcpservers"
	"github.com/switchboard-mcp/switchboard/shared/servercfg"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// inheritedEnv are the only variables of the relay's environment a stdio
// server gets besides those its entry lists: enough to find programs and a
// home directory, never the relay's secrets.
var inheritedEnv = []string{"PATH", "HOME"}

// stdioServers are the stdio servers of the operator's configuration file.
type stdioServers struct {
	list     []session.ConfiguredServer
	commands map[string]*conn.Command // by id
}

// loadStdioServers reads the operator's stdio configuration: a JSON file in
// the mcpServers layout of desktop MCP clients whose entries have command,
// args, env and cwd. Any entry it cannot take fails the whole file, so that
// the operator hears of it at start.
func loadStdioServers(path string) (stdioServers, error) {
	servers := stdioServers{commands: map[string]*conn.Command{}}
	if path == "" {
		return servers, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return servers, fmt.Errorf("stdio config: %w", err)
	}
	entries, err := mcpservers.Parse(b)
	if err != nil {
		return servers, fmt.Errorf("stdio config %s: %w", path, err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		name := strings.TrimSpace(e.Name)
		fail := func(why string) error {
			return fmt.Errorf("stdio config %s: server %q: %s", path, wire.Sanitize(e.Name, wire.MaxServerName), why)
		}
		switch {
		case e.Problem != "":
			return servers, fail(e.Problem)
		case e.HTTP != nil:
			return servers, fail("has a url: this file configures stdio servers (command, args, env, cwd); people add HTTP servers in the dashboard")
		}
		if why := stdioNameProblem(name); why != "" {
			return servers, fail(why)
		}
		id := stdioID(name)
		if names[strings.ToLower(name)] || servers.commands[id] != nil {
			return servers, fail("another server of the file has the same name or id " + id)
		}
		names[strings.ToLower(name)] = true
		servers.list = append(servers.list, session.ConfiguredServer{ID: id, Name: name})
		servers.commands[id] = &conn.Command{Path: e.Stdio.Command, Args: e.Stdio.Args, Env: childEnv(e.Stdio.Env), Dir: e.Stdio.Cwd}
	}
	return servers, nil
}

// command is the process of reg when it is a configured stdio server.
func (s stdioServers) command(reg store.Server) *conn.Command {
	if wire.Transport(reg.Transport) != wire.TransportStdio {
		return nil
	}
	return s.commands[reg.ID]
}

// missing lists the configured commands not found in PATH now, for a warning.
func (s stdioServers) missing() []string {
	var out []string
	for _, c := range s.list {
		if _, err := exec.LookPath(s.commands[c.ID].Path); err != nil {
			out = append(out, c.Name)
		}
	}
	return out
}

// childEnv is a stdio server's whole environment: PATH and HOME of the
// relay's, then the entry's variables (which win).
func childEnv(listed map[string]string) []string {
	env := map[string]string{}
	for _, k := range inheritedEnv {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	maps.Copy(env, listed)
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// stdioNameProblem says what is wrong with a configured server's name.
func stdioNameProblem(name string) string {
	switch {
	case name == "":
		return "an empty name"
	case !utf8.ValidString(name):
		return "a name that is not UTF-8"
	case utf8.RuneCountInString(name) > wire.MaxServerName:
		return fmt.Sprintf("a name longer than %d characters", wire.MaxServerName)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "a name with control characters"
	}
	return ""
}

// stdioID is the id of a configured server: stdio- and its name as
// servercfg.NormalizeID makes a person's id, within the same length.
func stdioID(name string) string {
	slug, err := servercfg.NormalizeID(name)
	if err != nil {
		slug = "server"
	}
	id := session.StdioIDPrefix + slug
	if len(id) > servercfg.MaxIDLength {
		id = strings.TrimRight(id[:servercfg.MaxIDLength], "-")
	}
	return id
}
