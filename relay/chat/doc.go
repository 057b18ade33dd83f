// Package chat is the person's own agent: conversations with a model that
// uses the tools of the person's servers, run in the relay.
//
// A [Room] runs each conversation's turns, one at a time per
// conversation: it streams the model's answer into the user's state (the
// session's chat part, relay/session chats.go), so that every open
// dashboard sees it grow and a reload picks it up; it offers the model the
// tools of the conversation's servers, named for model APIs
// (relay/toolnames); it runs the model's tool calls through the servers'
// owners, the relay's one call path, as an agent named "Chat: <title>", so
// a call is checked, recorded in Agent activity and attributes the
// questions its server asks, which carry the conversation (wire.Ask.Chat)
// and are answered by the person in the conversation; the model gets only
// the tool's result. Each tool has a policy (run, ask, never); "ask" waits
// for the person's Run, Deny or Always.
//
// Conversations and their turns are stored (relay/store) at every complete
// event: a turn's start, each model answer, each tool call's start and
// end, the turn's end. A relay that stops mid-turn finds the turn
// interrupted when it starts again ([Room.Start]), and the person may
// retry it.
//
// Models come from the operator's configuration (relay/models): the room
// asks for one by name for a user, which picks the person's own key when
// they set one.
package chat
