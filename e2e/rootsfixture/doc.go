// Package rootsfixture is a real go-sdk MCP server on a 127.0.0.1 port for
// the tests of roots, logging and activity: its tool "roots" lists the
// client's roots (roots/list, or an input request on the stateless
// 2026-07-28 protocol), "log" sends a log message at every level, and
// "grow" adds a tool, so that the client hears a tools list change. The
// server counts the roots list changes it hears and records the log levels
// a client sets, so that a test can await them.
package rootsfixture
