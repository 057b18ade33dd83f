package conn

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Key order of tool schemas. A tool's form lists its fields in the order of
// its inputSchema's properties, at every depth, so the input and output
// schemas of a tools/list result are read along (see schemaorder.go) and a
// listed tool carries them in the order the server wrote them.

// inputSchemaQuote marks a message that may list tools.
const inputSchemaQuote = `"inputSchema"`

// scanTools remembers the input and output schemas of the tools of result,
// a JSON-RPC result that may be a tools/list result.
func (o *schemaOrders) scanTools(result map[string]json.RawMessage) {
	var tools []json.RawMessage
	if json.Unmarshal(result["tools"], &tools) != nil {
		return
	}
	for _, raw := range tools {
		tool := jsonObject(raw)
		o.remember(tool["inputSchema"])
		o.remember(tool["outputSchema"])
	}
}

// convertListedTool is convertTool with the schemas in the server's order
// when it was seen.
func (c *Conn) convertListedTool(t *mcp.Tool) (wire.Tool, bool) {
	out, ok := convertTool(t)
	out.InputSchema = c.orders.inOrder(out.InputSchema)
	out.OutputSchema = c.orders.inOrder(out.OutputSchema)
	return out, ok
}
