// Command bench measures Switchboard side by side with the tools people use
// today and prints one table: figure, Switchboard, reference, ratio, target.
//
//	go run ./bench          # every figure, the full rounds (make bench)
//	go run ./bench -short   # every figure once, small sizes: checks the harness runs
//
// The relay under test runs in a child process (this binary, re-executed
// with the argument "relay"), so that its memory is measured apart from the
// fixtures and clients the harness runs. Every server binds 127.0.0.1.
//
// The figures:
//   - first render, cold and warm, bytes and time to interactive: the
//     dashboard against MCP Inspector's web UI (installed from
//     bench/inspector/package-lock.json), in headless Chromium, alternating,
//     each round in a fresh profile;
//   - the tool-call path: click to rendered result in the dashboard, and the
//     relay alone (op frame in to result frame out), against a direct go-sdk
//     client call of the same loopback tool; the click also against the
//     same click in MCP Inspector's web UI, through its proxy to the same
//     tool, alternating;
//   - fan-out of one tool-list change to many dashboards of one user;
//   - memory per idle dashboard and per idle MCP connection;
//   - the size of a delta when one tool of a thousand changes;
//   - an agent's call through the relay's /mcp against a direct call;
//   - the same call against mcp-hub, an aggregating MCP gateway (installed
//     from bench/peer/package-lock.json), both in front of the same two
//     servers: one agent, alternating, and 100 agents at once through each
//     (calls a second per core, a call's p99);
//   - replicas on one PostgreSQL: an agent's call forwarded by a replica
//     against the same call on the user's owner, the failover when the
//     owner is killed, and the memory of an idle user a replica owns.
//
// Timings depend on the machine and on what else runs on it; ratios measured
// in one run, alternating, are the figures to compare.
package main
