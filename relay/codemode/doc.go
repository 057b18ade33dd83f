// Package codemode is code mode: instead of every tool of every server,
// a model is given two, search and execute. [Search] declares the tools of
// the caller's scope as TypeScript, so that a model learns their exact
// shapes; [Execute] runs a short JavaScript program that calls the tools
// itself, each server a global object whose methods are its tools, and
// returns what the program returned and logged.
//
// A program runs in goja, a JavaScript engine in pure Go (no cgo) with
// ES2020 and later, promises and async/await included, that another
// goroutine can interrupt. It is maintained, and Docker's MCP gateway runs
// its code mode on it for the same purpose. A program gets a fresh runtime with nothing but its servers'
// objects (frozen) and console: no network, no file system, no timers, no
// module loading, and no way into the relay's memory but the tools' results
// it is given. The engine's own conversions are done in Go, so that a
// program that replaces JSON, Object.prototype or Array.prototype changes
// nothing but its own behaviour.
//
// Each program has [Limits]: its wall time, its tool calls, how many run at
// once, its output, its recursion depth and the growth of the heap while
// it runs. Passing one ends the program with an error that names the
// limit. The heap is the process's (Go has no per-goroutine accounting),
// so that limit is approximate: it stops a program that allocates without
// end, not one that allocates a little too much.
package codemode
