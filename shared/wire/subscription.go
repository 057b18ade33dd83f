package wire

// Resource subscriptions: made with [OpSubscribe], kept by the relay, and
// shown in the state as [KindSubscription] changes.

// MaxSubscriptions is how many resources one server may have subscriptions to.
const MaxSubscriptions = 100

// SubscribeArgs are the arguments of [OpSubscribe] and [OpUnsubscribe].
type SubscribeArgs struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
}

// ServerID returns the server the arguments name.
func (a SubscribeArgs) ServerID() string { return a.Server }

// Subscription is one subscribed resource of a server.
type Subscription struct {
	URI string `json:"uri"`
	// Updated is when the server last said the resource changed (RFC 3339,
	// UTC, milliseconds), empty until it does.
	Updated string `json:"updated,omitempty"`
	// Error says why the last attempt to subscribe on the current session
	// failed; empty when the server accepted it.
	Error string `json:"error,omitempty"`
}
