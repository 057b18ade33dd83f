// Package conntest helps tests of MCP connections (relay/conn) and of what
// drives them (relay/oauth): a [Recorder] collects the states a connection
// reports and waits for the ones a test expects. It is for tests only.
//
// It does not import relay/conn, so that relay/conn's own tests can use it:
// a Recorder holds states of any type, and reads their lifecycle through the
// function it is built with.
package conntest
