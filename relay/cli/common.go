package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// defaultUser is the relay's local user, as "switchboard serve" names it.
const defaultUser = "local"

// command is one subcommand: its flags and what it does once they are parsed.
type command struct {
	fs       *flag.FlagSet
	data     *string
	storeURL *string
	user     *string
	run      func(ctx context.Context, st *store.Store, out io.Writer) error
}

// newCommand returns a command with the flags every one shares: --data
// (default $SWITCHBOARD_DATA or ./data), --store (default
// $SWITCHBOARD_STORE) and --user.
func newCommand(name string) *command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	data := os.Getenv("SWITCHBOARD_DATA")
	if data == "" {
		data = "./data"
	}
	return &command{
		fs:       fs,
		data:     fs.String("data", data, "data directory of the relay: its SQLite database, or with --store its seal key ($SWITCHBOARD_DATA)"),
		storeURL: fs.String("store", os.Getenv("SWITCHBOARD_STORE"), "PostgreSQL database of the relay, a postgres:// URL; empty for SQLite in --data ($SWITCHBOARD_STORE)"),
		user:     fs.String("user", defaultUser, "user whose servers and keys these are"),
	}
}

// exec parses args, opens the store and runs the command.
func (c *command) exec(args []string, out io.Writer) error {
	c.fs.SetOutput(out)
	if err := c.fs.Parse(args); err != nil {
		return err
	}
	if strings.TrimSpace(*c.user) == "" {
		return errors.New("--user must not be empty")
	}
	if err := store.CheckTarget(*c.storeURL); err != nil {
		return fmt.Errorf("--store: %w", err)
	}
	ctx := context.Background()
	st, err := store.OpenTarget(ctx, *c.storeURL, *c.data)
	if err != nil {
		return err
	}
	defer st.Close()
	return c.run(ctx, st, out)
}

// dispatch runs the subcommand args[0] of group.
func dispatch(group string, args []string, out io.Writer, cmds map[string]func() *command) error {
	if len(args) == 0 || cmds[args[0]] == nil {
		names := slices.Sorted(maps.Keys(cmds))
		return fmt.Errorf("usage: switchboard %s <%s> [flags]", group, strings.Join(names, "|"))
	}
	return cmds[args[0]]().exec(args[1:], out)
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
