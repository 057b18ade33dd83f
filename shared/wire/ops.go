package wire

// OpName names an op: what a dashboard asks the relay to do.
type OpName string

// Ops on servers: adding, removing, editing, connecting and importing them.
const (
	// OpAddServer adds a server: [AddServerArgs] → [AddServerResult].
	OpAddServer OpName = "server.add"
	// OpRemoveServer removes a server and forgets it: [ServerArgs] → {}.
	OpRemoveServer OpName = "server.remove"
	// OpRetryServer reconnects a server now: [ServerArgs] → {}.
	OpRetryServer OpName = "server.retry"
	// OpUpdateServer edits a server in place: [UpdateServerArgs] → {}.
	OpUpdateServer OpName = "server.update"
	// OpSetServerConnected connects or disconnects a server without removing
	// it: [SetServerConnectedArgs] → {}.
	OpSetServerConnected OpName = "server.set_connected"
	// OpImportServers adds the HTTP entries of an mcpServers JSON document:
	// [ImportServersArgs] → [ImportServersResult].
	OpImportServers OpName = "servers.import"
	// OpPing pings a server: [ServerArgs] → [PingResult].
	OpPing OpName = "server.ping"
)

// Ops on a server's OAuth.
const (
	// OpAuthorize starts an authorization for a server in state
	// authenticating: [ServerArgs] → [AuthorizeResult]. The dashboard opens
	// the URL in a popup; the relay's callback finishes the flow.
	OpAuthorize OpName = "server.authorize"
	// OpSetClient stores pre-registered client credentials for a server:
	// [SetClientArgs] → {}. The secret is write-only: it never comes back.
	OpSetClient OpName = "server.set_client"
)

// Ops that call a server (tools, prompts, resources, completions), and
// their cancelling.
const (
	// OpCallTool calls a tool: [CallToolArgs] → [CallToolResult].
	// A result with IsError set is still a result, not an error frame.
	OpCallTool OpName = "tool.call"
	// OpGetPrompt gets a prompt: [GetPromptArgs] → [GetPromptResult].
	OpGetPrompt OpName = "prompt.get"
	// OpReadResource reads a resource: [ReadResourceArgs] → [ReadResourceResult].
	OpReadResource OpName = "resource.read"
	// OpComplete asks a server to suggest values for a prompt argument or a
	// resource template variable: [CompleteArgs] → [CompleteResult]. It fails
	// with [CodeBadRequest] when the server did not declare completions.
	OpComplete OpName = "completion.complete"
	// OpCancel cancels a running op: [CancelArgs] → {}. The cancelled op is
	// answered with a [CodeCancelled] error.
	OpCancel OpName = "op.cancel"
	// OpCancelCall cancels a running call from any dashboard of its user:
	// [CallArgs] → {}. The call ends as failed with [CodeCancelled] (or with its
	// result, if that came first); a task is cancelled with tasks/cancel.
	OpCancelCall OpName = "call.cancel"
)

// Ops on resource subscriptions. A subscription is remembered by the relay
// and made again on every new session with the server, until unsubscribed.
const (
	// OpSubscribe subscribes to a resource's updates: [SubscribeArgs] → {}.
	// It fails with [CodeBadRequest] when the server did not declare
	// resources.subscribe.
	OpSubscribe OpName = "resource.subscribe"
	// OpUnsubscribe ends a subscription: [SubscribeArgs] → {}.
	OpUnsubscribe OpName = "resource.unsubscribe"
)

// Ops on asks, and on the kinds of asks a server may raise.
const (
	// OpAnswerAsk answers an ask: [AnswerAskArgs] → {}. The first answer
	// wins; an answer to an unknown or settled ask is a [CodeNotFound] error,
	// one to a refused ask a [CodeBadRequest] error.
	// An accepted form must validate against its schema ([CodeBadRequest]
	// with the field errors otherwise); URL answers carry no content.
	OpAnswerAsk OpName = "ask.answer"
	// OpDismissAsk stops waiting for a URL ask's completion, or takes a
	// refused ask off the dashboards: [AskArgs] → {}.
	OpDismissAsk OpName = "ask.dismiss"
	// OpCompleteAsk marks a waiting URL ask as done by the person (when the
	// server sends no completion notification): [AskArgs] → {}.
	OpCompleteAsk OpName = "ask.complete"
	// OpDraftAsk asks the relay's configured model for a draft answer to a
	// pending sampling ask: [AskArgs] → [SamplingResult]. The draft goes only
	// to the dashboard that asked; nothing reaches the server until the person
	// answers. Without a configured model it is a [CodeNotConfigured] error.
	OpDraftAsk OpName = "ask.draft"
	// OpForwardAsk hands a pending sampling ask to the client of the agent on
	// whose call it was raised, and answers the ask with that client's reply:
	// [AskArgs] → {}. It returns once the ask is answered. An ask without
	// Forward is a [CodeBadRequest] error; when the agent's client fails,
	// refuses or replies with a message that does not fit the request, the op
	// fails with a [CodeUpstream] error saying so and the ask stays pending, to
	// be answered another way.
	OpForwardAsk OpName = "ask.forward"
	// OpSetAskModes changes the kinds of asks a server may raise:
	// [SetAskModesArgs] → {}. The server reconnects, since they are advertised
	// when a session starts. SamplingModel without a configured model is a
	// [CodeNotConfigured] error.
	OpSetAskModes OpName = "server.set_ask_modes"
)

// Ops on the person's roots.
const (
	// OpSetRoots replaces the person's roots: [SetRootsArgs] → {}. Every
	// server that is not excluded is told that the list changed.
	OpSetRoots OpName = "roots.set"
	// OpExcludeRoots hides (or shows again) the roots from one server:
	// [ExcludeRootsArgs] → {}. An excluded server sees an empty list.
	OpExcludeRoots OpName = "server.exclude_roots"
)

// Ops on a server's journal.
const (
	// OpSetLogLevel sets the lowest level of log messages the server should
	// send: [SetLogLevelArgs] → {}. The level is kept and asked for again
	// on every connection. An empty level asks for none.
	OpSetLogLevel OpName = "server.set_log_level"
	// OpClearLogs clears a server's logs on every dashboard: [ServerArgs] → {}.
	OpClearLogs OpName = "server.clear_logs"
	// OpClearActivity clears a server's activity: [ServerArgs] → {}.
	OpClearActivity OpName = "server.clear_activity"
)

// Ops of the agent keys and the agent activity log.
const (
	// OpListAgentKeys lists the user's agent keys: {} → [AgentKeysResult].
	OpListAgentKeys OpName = "agent.keys"
	// OpCreateAgentKey mints an agent key: [CreateAgentKeyArgs] →
	// [CreateAgentKeyResult], whose Secret is shown once and never again.
	OpCreateAgentKey OpName = "agent.key.create"
	// OpRevokeAgentKey revokes an agent key and closes its agent's live
	// sessions: [AgentKeyArgs] → {}.
	OpRevokeAgentKey OpName = "agent.key.revoke"
	// OpListActivity lists logged agent calls, newest first:
	// [ListActivityArgs] → [ActivityResult]. New calls also arrive as
	// [KindAgentCall] changes.
	OpListActivity OpName = "agent.activity"
)

// Ops of the OAuth grants people give MCP clients that add the relay by
// its URL: the consent card and the grants listed beside the agent keys.
const (
	// OpAgentConsent reads an authorization waiting for consent:
	// [AgentConsentArgs] → [AgentConsent].
	OpAgentConsent OpName = "agent.consent"
	// OpAnswerAgentConsent approves (possibly narrowed) or denies it:
	// [AnswerAgentConsentArgs] → [AnswerAgentConsentResult], the address
	// the browser goes to next (the client's redirect).
	OpAnswerAgentConsent OpName = "agent.consent.answer"
	// OpListAgentGrants lists the user's grants: {} → [AgentGrantsResult].
	OpListAgentGrants OpName = "agent.grants"
	// OpRevokeAgentGrant revokes a grant, its tokens and its agent's live
	// sessions: [AgentGrantArgs] → {}.
	OpRevokeAgentGrant OpName = "agent.grant.revoke"
)
