// Package apps is the relay's side of MCP Apps (the
// io.modelcontextprotocol/ui extension): the sandbox proxy served on the
// Apps origin, which frames a server's view under the policy the view
// declared, and the ops by which the dashboard reads a view (app.read) and
// writes a view's log lines into its server's log (app.log).
package apps
