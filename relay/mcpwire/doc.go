// Package mcpwire converts what an MCP connection (relay/conn) speaks, the
// go-sdk's MCP types and its errors, into what a dashboard is shown, the
// browser's own types of shared/wire.
//
// It does not import relay/conn, so that every room above a connection
// (relay/session, relay/gateway) can use it: where it needs what a
// connection says, it takes plain values or declares the small interface
// it reads.
package mcpwire
