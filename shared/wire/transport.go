package wire

// Transport names how the relay speaks to an MCP server.
type Transport string

// Transports.
const (
	TransportStreamable Transport = "streamable-http" // Streamable HTTP, the default
	TransportSSE        Transport = "sse"             // the legacy HTTP+SSE transport
	TransportAuto       Transport = "auto"            // Streamable HTTP, falling back to SSE
	TransportStdio      Transport = "stdio"           // a process of the relay operator's configuration file
)
