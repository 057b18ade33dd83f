// Package metrics counts what the relay does, for Prometheus.
//
// Every metric lives in one private registry (never the client library's
// global one) and every name starts with switchboard_. [Handler] serves
// the registry in the Prometheus text format, on the listener of
// --metrics-addr. The rooms record through the small functions of this
// package, one line at each place: [Call] around a call on the one call
// path, [ConnectionMoved] when a server's connection changes state, and so
// on.
//
// Labels name routes, kinds, states and outcomes only: never a user, a
// server's URL, a tool, an argument or anything a person typed, so that a
// metric carries no secret and no one's input.
package metrics
