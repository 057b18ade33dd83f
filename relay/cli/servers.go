package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/mcpservers"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Servers runs "switchboard servers add|list|import|machine-access".
func Servers(args []string, out io.Writer) error {
	return dispatch("servers", args, out, map[string]func() *command{
		"add":    serversAdd,
		"list":   serversList,
		"import": serversImport,
		// machine access: machine.go
		"machine-access": serversMachine,
	})
}

func serversAdd() *command {
	c := newCommand("servers add")
	name := c.fs.String("name", "", "name of the server (required)")
	url := c.fs.String("url", "", "URL of the server's MCP endpoint (required)")
	transport := c.fs.String("transport", string(wire.TransportAuto), "auto, streamable-http or sse")
	c.run = func(ctx context.Context, st *store.Store, out io.Writer) error {
		if c.fs.NArg() > 0 {
			return fmt.Errorf("unexpected arguments: %v", c.fs.Args())
		}
		id, existing, err := addServer(ctx, st, *c.user, wire.AddServerArgs{Name: *name, URL: *url, Transport: wire.Transport(*transport)})
		if err != nil {
			return err
		}
		if existing {
			fmt.Fprintf(out, "already registered: %s\n", id)
			return nil
		}
		fmt.Fprintf(out, "added %q for %s: %s\n", *name, *c.user, id)
		return nil
	}
	return c
}

// addServer registers a server as a dashboard's add would: the same name
// with the same URL and transport is the server already there.
func addServer(ctx context.Context, st *store.Store, user string, args wire.AddServerArgs) (id string, existing bool, err error) {
	res, err := session.Register(ctx, st, user, args)
	if err != nil {
		return "", false, plain(err)
	}
	return res.ID, res.Existing, nil
}

// plain is a wire error as a command's error: its message alone.
func plain(err error) error {
	var we *wire.Error
	if errors.As(err, &we) {
		return errors.New(we.Message)
	}
	return err
}

func serversList() *command {
	c := newCommand("servers list")
	c.run = func(ctx context.Context, st *store.Store, out io.Writer) error {
		regs, err := st.Servers(ctx, *c.user)
		if err != nil {
			return err
		}
		if len(regs) == 0 {
			fmt.Fprintf(out, "no servers for %s\n", *c.user)
			return nil
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tTRANSPORT\tURL")
		for _, r := range regs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, wire.Sanitize(r.Name, wire.MaxServerName), r.Transport, shownURL(r))
		}
		return tw.Flush()
	}
	return c
}

func serversImport() *command {
	c := newCommand("servers import")
	c.fs.Usage = func() {
		fmt.Fprintln(c.fs.Output(), "usage: switchboard servers import [--data DIR] [--user USER] FILE")
		c.fs.PrintDefaults()
	}
	c.run = func(ctx context.Context, st *store.Store, out io.Writer) error {
		if c.fs.NArg() != 1 {
			return errors.New("servers import: name one FILE (a JSON file with an mcpServers object)")
		}
		b, err := os.ReadFile(c.fs.Arg(0))
		if err != nil {
			return err
		}
		entries, err := mcpservers.Parse(b)
		if err != nil {
			return fmt.Errorf("%s: %w", c.fs.Arg(0), err)
		}
		return importEntries(ctx, st, *c.user, entries, out)
	}
	return c
}

// shownURL is a server's URL with its secret query values masked.
func shownURL(r store.Server) string {
	if r.DisplayURL != "" {
		return r.DisplayURL
	}
	return r.URL
}
