package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/mcpservers"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// stdioReason is why a stdio entry of a person's file is not taken.
const stdioReason = "a stdio server (it runs a local command); the relay starts no commands from a file: serve it over HTTP and add its URL, or ask the relay's operator to configure it"

// importEntries registers each HTTP entry and says, one line each, what
// became of every entry: added, already there, or not taken and why.
func importEntries(ctx context.Context, st *store.Store, user string, entries []mcpservers.Entry, out io.Writer) error {
	var added, existing, skipped int
	for _, e := range entries {
		name := wire.Sanitize(e.Name, wire.MaxServerName)
		why := e.Problem
		if e.Stdio != nil {
			why = stdioReason
		}
		if why != "" {
			skipped++
			fmt.Fprintf(out, "not taken  %q: %s\n", name, why)
			continue
		}
		args := wire.AddServerArgs{Name: e.Name, URL: e.HTTP.URL, Transport: e.HTTP.Transport}
		id, there, err := addServer(ctx, st, user, args)
		switch {
		case err != nil:
			skipped++
			fmt.Fprintf(out, "not taken  %q: %s\n", name, wire.Sanitize(err.Error(), wire.MaxErrorMessage))
		case there:
			existing++
			fmt.Fprintf(out, "existing   %q: %s\n", name, id)
		default:
			added++
			note := ""
			if len(e.HTTP.Headers) > 0 {
				note = " (its headers were not imported: the relay does not take secrets from a file on the command line; set them in the dashboard)"
			}
			fmt.Fprintf(out, "added      %q: %s%s\n", name, id, note)
		}
	}
	fmt.Fprintf(out, "%d added, %d already registered, %d not taken\n", added, existing, skipped)
	return nil
}
