// Package storetest is for tests: it connects the dashboard's own client
// store ([store.Client]) to a relay, so that a test sees the user's state
// exactly as a dashboard mirrors it.
//
// [Connect] returns a [Dashboard]: a started store.Client plus what tests
// need around it. [Dashboard.Until] waits, on the client's change signal and
// never by sleeping, until the mirrored [store.View] satisfies a condition,
// and [Dashboard.UntilSeq] until it applied the relay's state numbered seq;
// [Dashboard.Op] sends an op and waits for its answer. A Dashboard fails its
// test when the client had to resync (a delta out of sequence, a frame it
// could not read, a stream it could not apply), unless the test said it
// expects one ([Dashboard.ExpectResync]).
//
// Two dialers connect it: [InProcess] attaches to a relay session's
// subscriber in the same process (anything with the methods of a
// [Subscription]), [WebSocket] opens a real socket to a relay's /ws with the
// headers a test chooses. WebSocket exists on the host only: a page's
// socket cannot set headers.
//
// The package imports nothing of the relay, so the relay's own packages
// can use it in their internal tests, and nothing of the dashboard's build
// imports it.
package storetest
