package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// AgentKey runs "switchboard agent-key create|list|revoke".
func AgentKey(args []string, out io.Writer) error {
	return dispatch("agent-key", args, out, map[string]func() *command{
		"create": agentKeyCreate,
		"list":   agentKeyList,
		"revoke": agentKeyRevoke,
	})
}

func agentKeyCreate() *command {
	c := newCommand("agent-key create")
	name := c.fs.String("name", "", "name of the agent the key is for (required)")
	servers := c.fs.String("servers", "", "comma-separated ids of the servers the key reaches (default: all, including later ones)")
	tools := c.fs.String("tools", "", "comma-separated tools the key may call, as <server-id>__<tool> or a bare tool name (default: all)")
	ttl := c.fs.Duration("ttl", 0, "lifetime of the key, such as 720h (default: no expiry)")
	forward := c.fs.Bool("forward-sampling", false, "let the person hand a sampling request raised during the agent's call to the agent's own client, when it declares sampling")
	mode := c.fs.String("tool-mode", "tools", "how the key's agents see the tools on /mcp: tools (one by one), code (code mode's search and execute) or both")
	c.run = func(ctx context.Context, st *store.Store, out io.Writer) error {
		n, err := agentkeys.NewKeyRequest(*c.user, *name, splitList(*servers), splitList(*tools), *ttl, time.Now())
		if err != nil {
			return plain(err)
		}
		if !wire.ToolMode(*mode).Valid() {
			return fmt.Errorf("--tool-mode is tools, code or both, not %q", *mode)
		}
		n.ForwardSampling, n.ToolMode = *forward, *mode
		k, key, err := st.CreateAgentKey(ctx, n)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("--servers names a server %s does not have (see switchboard servers list)", *c.user)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "created agent key %s %q for %s, reaching %s%s%s%s.\n", k.ID, k.Name, k.User, reach(k), expiry(k), forwarding(k), toolMode(k))
		fmt.Fprintln(out, "It is shown this once; the relay keeps only its hash. Key:")
		fmt.Fprintln(out, key)
		return nil
	}
	return c
}

// reach says which servers a key reaches.
func reach(k store.AgentKey) string {
	switch {
	case k.AllServers:
		return "all servers"
	case len(k.Servers) == 0:
		return "no servers"
	}
	return "servers " + strings.Join(k.Servers, ", ")
}

// forwarding says whether a key lets sampling be handed to its agent.
func forwarding(k store.AgentKey) string {
	if !k.ForwardSampling {
		return ""
	}
	return "; sampling may be handed to the agent's client"
}

// toolMode says how a key's agents see the tools, unless one by one.
func toolMode(k store.AgentKey) string {
	switch wire.ToolMode(k.ToolMode) {
	case wire.ToolModeCode:
		return "; code mode on /mcp"
	case wire.ToolModeBoth:
		return "; tools and code mode on /mcp"
	}
	return ""
}

func expiry(k store.AgentKey) string {
	if k.Expires.IsZero() {
		return ""
	}
	return ", until " + k.Expires.Format(time.RFC3339)
}

func agentKeyList() *command {
	c := newCommand("agent-key list")
	c.run = func(ctx context.Context, st *store.Store, out io.Writer) error {
		keys, err := st.AgentKeys(ctx, *c.user)
		if err != nil {
			return err
		}
		if len(keys) == 0 {
			fmt.Fprintf(out, "no agent keys for %s\n", *c.user)
			return nil
		}
		now := time.Now()
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tSTATUS\tSERVERS\tCREATED\tLAST USED")
		for _, k := range keys {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, wire.Sanitize(k.Name, wire.MaxAgentKeyName), status(k, now),
				reach(k), k.Created.Format(time.DateTime), when(k.LastUsed))
		}
		return tw.Flush()
	}
	return c
}

func status(k store.AgentKey, now time.Time) string {
	switch {
	case !k.Revoked.IsZero():
		return "revoked"
	case !k.Expires.IsZero() && !now.Before(k.Expires):
		return "expired"
	}
	return "active"
}

func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Format(time.DateTime)
}

func agentKeyRevoke() *command {
	c := newCommand("agent-key revoke")
	id := c.fs.String("id", "", "id of the key to revoke (see agent-key list)")
	c.run = func(ctx context.Context, st *store.Store, out io.Writer) error {
		if *id == "" {
			return errors.New("--id is required")
		}
		err := st.RevokeAgentKey(ctx, *c.user, *id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return fmt.Errorf("%s has no agent key %s", *c.user, *id)
		case errors.Is(err, store.ErrKeyRevoked):
			return fmt.Errorf("agent key %s is already revoked", *id)
		case err != nil:
			return err
		}
		fmt.Fprintf(out, "revoked agent key %s; a running relay disconnects its agent within a second\n", *id)
		return nil
	}
	return c
}
