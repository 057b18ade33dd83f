package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/mcpservers"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// importEntries registers each HTTP entry and says, one line each, what
// became of every entry: added, already there, or not taken and why.
func importEntries(ctx context.Context, st *store.Store, user string, entries []mcpservers.Entry, out io.Writer) error {
	var added, existing, skipped int
	for _, e := range entries {
		name := wire.Sanitize(e.Name, wire.MaxServerName)
		why := e.Problem
		if e.Stdio != nil {
			why = mcpservers.StdioReason
		}
		if why != "" {
			skipped++
			fmt.Fprintf(out, "not taken  %q: %s\n", name, why)
			continue
		}
		headers, unset := mcpservers.SplitHeaders(e.HTTP.Headers)
		args := wire.AddServerArgs{Name: e.Name, URL: e.HTTP.URL, Transport: e.HTTP.Transport, Headers: headers}
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
			if len(unset) > 0 {
				note = fmt.Sprintf(" (header %s has no value in the file: set it in the dashboard)", strings.Join(unset, ", "))
			}
			fmt.Fprintf(out, "added      %q: %s%s\n", name, id, note)
		}
	}
	fmt.Fprintf(out, "%d added, %d already registered, %d not taken\n", added, existing, skipped)
	return nil
}
