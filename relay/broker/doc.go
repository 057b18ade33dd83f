// Package broker holds a user's pending asks: a server's requests for a
// person (an elicitation form, consent to open a URL, a sampling request),
// from the moment a
// connection asks until someone answers, the deadline passes or the
// request is withdrawn.
//
// A [Broker] belongs to one user's session. [Broker.Ask] hands an ask to the
// session (a [Sink]), which puts it in the user's state, so that every open
// dashboard shows it and a dashboard that reloads or reconnects gets it
// again from the snapshot. Ask then waits for the first of:
//   - an answer ([Broker.Answer]): the first one wins, later ones are refused
//     as answers to a settled ask; an accepted form must validate against its
//     schema (shared/schema) and a URL answer carries no content;
//   - the deadline ([Config.Timeout]): the relay answers cancel;
//   - the end of the caller's context (the server cancelled its request, or
//     the connection dropped): the ask is withdrawn everywhere.
//
// An accepted URL ask is consent to open the URL; it then waits, shown as
// [wire.AskWaiting], until the server reports the interaction complete
// ([Broker.Completed]), the person says it is done ([Broker.MarkDone]) or
// dismisses it ([Broker.Dismiss]), or [Config.WaitTimeout] passes.
//
// A URL that [urlsafe.CheckOpenable] refuses (not http or https, http on a
// host that is not loopback, credentials, control characters, ...) is never
// sent to a dashboard: Ask refuses it at once with a [wire.CodeInvalidURL]
// error, and the connection declines; the ask is shown as
// [wire.AskRefused], with the reason instead of the URL, until the person
// dismisses it ([Broker.Dismiss]) or [Config.RefusedFor] passes.
//
// A sampling ask ([wire.AskSampling]) is answered with a message, checked
// by [CheckSamplingResult]; at its deadline, or when it cannot be shown,
// Ask returns an error rather than a cancel, so that the server gets a
// JSON-RPC error and never a made-up reply (see sampling.go).
//
// The broker calls its sink with its own lock held, so that the dashboards
// see an ask's changes in the order they happen; a sink must not call back
// into the broker.
package broker
