// Package mcpservers reads and writes the JSON layout in which desktop MCP
// clients list their servers, so that a person can bring servers in and take
// them out, and an operator can configure stdio servers in the same words.
//
// The layouts read, by their top-level key:
//
//   - "mcpServers": Claude Desktop (claude_desktop_config.json), Cursor
//     (.cursor/mcp.json), Windsurf, Cline and most others;
//   - "servers": VS Code's .vscode/mcp.json;
//   - "mcp": {"servers": ...}: VS Code's user settings.json.
//
// Each entry is an object. An HTTP entry has "url" (or "serverUrl"), an
// optional "type" or "transport" ("http", "streamable-http", "sse") and
// optional "headers". A stdio entry has "command", optional "args", "env"
// and "cwd". [Parse] keeps the file's order and says of every entry it
// cannot read why not; [Export] writes servers back in the "mcpServers"
// layout without any secret value.
//
// The package is plain data (stdlib and shared/wire only): the relay and the
// dashboard both use it.
package mcpservers
