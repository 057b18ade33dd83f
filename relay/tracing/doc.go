// Package tracing sends the relay's OpenTelemetry traces over OTLP.
//
// [Setup] reads the standard OTEL_* environment variables: with
// OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set,
// or OTEL_TRACES_EXPORTER=otlp, it exports spans over OTLP/HTTP (protobuf)
// and installs the W3C trace context propagator; otherwise, or with
// OTEL_TRACES_EXPORTER=none, tracing is off and every span is a no-op.
//
// The rooms open spans with [Start] and end them with [End]; [Client]
// wraps the HTTP client of MCP connections so that each request carries
// the traceparent of the span it is made in, and an MCP server's own
// traces join the relay's. Span attributes name kinds and outcomes only,
// never a secret or a person's input.
package tracing
