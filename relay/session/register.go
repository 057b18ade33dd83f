package session

import (
	"context"
	"errors"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Register stores the server args describe as [Session.Add] does (the same
// checks, the same answer for a server already there), for tools that
// register servers without a running relay (the command line). A running
// relay picks it up with [Manager.Sync].
func Register(ctx context.Context, st Store, user string, args wire.AddServerArgs) (wire.AddServerResult, error) {
	reg, err := newRegistration(user, args)
	if err != nil {
		return wire.AddServerResult{}, err
	}
	regs, err := st.Servers(ctx, user)
	if err != nil {
		return wire.AddServerResult{}, err
	}
	if res, found, err := existingFor(reg, args, regs); found || err != nil {
		return res, err
	}
	if err := storeNew(ctx, st, reg); err != nil {
		return wire.AddServerResult{}, err
	}
	return wire.AddServerResult{ID: reg.ID}, nil
}

// existingFor says what adding reg (args as asked) finds among a user's
// servers: the same server (same name, URL and transport, and id when one
// was asked for), or an error for a name or an id another server has.
func existingFor(reg store.Server, args wire.AddServerArgs, regs []store.Server) (wire.AddServerResult, bool, error) {
	askedID := strings.TrimSpace(args.ID) != ""
	for _, r := range regs {
		sameID := askedID && r.ID == reg.ID
		if r.Name != reg.Name && !sameID {
			continue
		}
		if r.Name == reg.Name && r.URL == reg.URL && r.Transport == reg.Transport && (sameID || !askedID) {
			return wire.AddServerResult{ID: r.ID, Existing: true}, true, nil
		}
		if sameID {
			return wire.AddServerResult{}, false, idTaken(reg.ID, r.Name)
		}
		return wire.AddServerResult{}, false, nameTaken(reg.Name)
	}
	return wire.AddServerResult{}, false, nil
}

// storeNew stores a new server; a name or id taken meanwhile is a
// [*wire.Error], anything else the store's error.
func storeNew(ctx context.Context, st Store, reg store.Server) error {
	switch err := st.AddServer(ctx, reg); {
	case errors.Is(err, store.ErrIDTaken):
		return idTaken(reg.ID, "")
	case errors.Is(err, store.ErrNameTaken):
		return nameTaken(reg.Name)
	default:
		return err
	}
}
