package wire

import "encoding/json"

// ChangeKind names what a [Change] puts or removes.
type ChangeKind string

// Change kinds of the servers and their lists.
const (
	KindServer       ChangeKind = "server"       // Key is the server id; Value is [Server.Meta]
	KindTool         ChangeKind = "tool"         // Key is the tool name; Value is a [Tool]
	KindPrompt       ChangeKind = "prompt"       // Key is the prompt name; Value is a [Prompt]
	KindResource     ChangeKind = "resource"     // Key is the resource URI; Value is a [Resource]
	KindTemplate     ChangeKind = "template"     // Key is the URI template; Value is a [ResourceTemplate]
	KindSubscription ChangeKind = "subscription" // Key is the resource URI; Value is a [Subscription]
)

// Change kinds of the rest of a user's state.
const (
	// KindAsk: Server is the asking server's id, Key the ask id, Value an [Ask].
	KindAsk ChangeKind = "ask"
	// KindCall: Server is the called server's id, Key the call id, Value a [Call].
	KindCall ChangeKind = "call"
	// KindLog appends one [LogEntry] to the server's logs; Key is its N.
	// With Remove, it clears the server's logs.
	KindLog ChangeKind = "log"
	// KindActivity appends one [Activity] to the server's activity; Key is
	// its N. With Remove, it clears the server's activity.
	KindActivity ChangeKind = "activity"
	// KindRoots replaces the person's whole list of roots: Server and Key are
	// empty and Value is a JSON array of [Root]. The list is short (at most
	// [MaxRoots]) and edited as a whole, so a change carries all of it.
	KindRoots ChangeKind = "roots"
	// KindAgentCall: Key is the call's id, Value an [AgentCall]. The state
	// keeps the latest [MaxLiveAgentCalls]; older ones are removed by changes
	// and stay listed by [OpListActivity].
	KindAgentCall ChangeKind = "agent_call"
)

// Delta is the data of a [TypeDelta] frame. The frame's Seq is the
// sequence number after applying it; it is always the previous one plus one.
type Delta struct {
	Changes []Change `json:"changes"`
}

// Change puts or removes one item. Removing a server removes its lists too.
// A put of a server keeps its lists; a put of an item replaces the item of the
// same key or appends it.
type Change struct {
	Kind   ChangeKind      `json:"kind"`
	Server string          `json:"server"`
	Key    string          `json:"key"`
	Remove bool            `json:"remove,omitempty"`
	Value  json.RawMessage `json:"value,omitempty"`
	// At, on a put of a new server or of an item new to a server's list, is
	// its index; without it (or out of range) it goes to the end.
	At *int `json:"at,omitempty"`
}
