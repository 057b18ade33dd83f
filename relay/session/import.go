package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/mcpservers"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// ImportServers adds the HTTP entries of an mcpServers document as [Session.Add]
// would, one at a time in the document's order, and says of every other
// entry why it was not taken. Header values are secrets: they go to Add and
// never into the report.
func (s *Session) ImportServers(ctx context.Context, args wire.ImportServersArgs) (wire.ImportServersResult, error) {
	entries, err := mcpservers.Parse(args.Document)
	if err != nil {
		return wire.ImportServersResult{}, wire.NewError(wire.CodeBadRequest, "cannot read the file: "+err.Error())
	}
	var res wire.ImportServersResult
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return wire.ImportServersResult{}, err
		}
		name := wire.Sanitize(e.Name, wire.MaxServerName)
		why := e.Problem
		if e.Stdio != nil {
			why = mcpservers.StdioReason
		}
		if why != "" {
			res.Skipped = append(res.Skipped, wire.SkippedServer{Name: name, Reason: why})
			continue
		}
		headers, unset := mcpservers.SplitHeaders(e.HTTP.Headers)
		added, err := s.Add(ctx, wire.AddServerArgs{Name: e.Name, URL: e.HTTP.URL, Transport: e.HTTP.Transport, Headers: headers})
		if err != nil {
			res.Skipped = append(res.Skipped, wire.SkippedServer{Name: name, Reason: asWireError(err).Message})
			continue
		}
		imported := wire.ImportedServer{Name: name, ID: added.ID, Existing: added.Existing}
		if len(unset) > 0 {
			imported.Note = wire.Sanitize(fmt.Sprintf("header %s has no value in the file: set it on the server", strings.Join(unset, ", ")), wire.MaxErrorMessage)
		}
		res.Added = append(res.Added, imported)
	}
	s.m.logger.Info("servers imported", "user", s.user, "added", len(res.Added), "skipped", len(res.Skipped))
	return res, nil
}
