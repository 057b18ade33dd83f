package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The official MCP Apps example server, @modelcontextprotocol/server-basic-vanillajs
// (pinned in e2e/apps, installed by make apps-server): one tool, get-time,
// whose view (vanilla JavaScript on the ext-apps App class) shows the time
// of the tool result in #server-time, calls get-time again through the host
// when #get-time-btn is clicked, and sets data-theme on its <html> from the
// host context's theme. It serves MCP statelessly over streamable HTTP at
// /mcp (--stdio would serve stdio).
const (
	basicDir   = "apps"
	basicEntry = "node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js"
	basicName  = "Basic MCP App Server (Vanilla JS)" // its serverInfo.name
	basicTool  = "get-time"
	basicURI   = "ui://get-time/mcp-app.html"
)

// startBasicServer runs the example server on a free loopback port until
// the test ends and returns its MCP endpoint. It skips the test, saying
// why, when the server is not installed or Node.js is missing.
func startBasicServer(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(basicDir, basicEntry)); err != nil {
		t.Skipf("the MCP Apps example server is not installed (make apps-server): %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("Node.js is needed for the MCP Apps example server: %v", err)
	}
	return startNodeServer(t, basicDir, basicEntry, nil) + "/mcp"
}
