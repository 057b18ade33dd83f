package gateway

import "testing"

// OnSubscribeWait runs f whenever a subscribe has to wait for another
// subscribe of its view, until the test ends.
func OnSubscribeWait(t testing.TB, f func()) {
	subscribeWaits.Store(&f)
	t.Cleanup(func() { subscribeWaits.Store(nil) })
}

// MaxRounds is how many sampling requests one call may hand its agent in
// rounds.
const MaxRounds = maxRounds
const MaxTasks = maxTasks
