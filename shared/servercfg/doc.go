// Package servercfg holds the rules of a server's configuration that the
// dashboard checks before sending and the relay checks again: the server id
// a person may choose ([NormalizeID]), custom header names and values
// ([CheckHeader]), retry settings ([CheckRetry]) and the query parameters of
// a server URL that carry secrets ([MaskURL]).
//
// It imports nothing but the standard library and shared/wire, so that the
// WebAssembly dashboard and the relay run the same code.
package servercfg
