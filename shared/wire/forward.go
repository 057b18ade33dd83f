package wire

// Forwarding sampling to an agent. A sampling request a server raises
// during an agent's call is the person's to answer (or the configured
// model's, in [SamplingModel] mode). When the agent's key allows it and the
// agent's own MCP client declares sampling, the ask has Forward set, and
// the person may instead hand the request to that client with
// [OpForwardAsk]: only then does the relay send it, as the server sent it,
// and the client's reply, checked like any answer, becomes the answer. The
// dashboard learns nothing of the agent but its name ([Ask.Agent]).

// OpForwardAsk hands a pending sampling ask to the client of the agent on
// whose call it was raised, and answers the ask with that client's reply:
// [AskArgs] → {}. It returns once the ask is answered. An ask without
// Forward is a [CodeBadRequest] error; when the agent's client fails,
// refuses or replies with a message that does not fit the request, the op
// fails with a [CodeUpstream] error saying so and the ask stays pending, to
// be answered another way.
const OpForwardAsk OpName = "ask.forward"

// MaxForwardErrorRunes caps the error of an agent's client that the
// dashboard is shown.
const MaxForwardErrorRunes = 300

// ActivitySamplingForwarded is the activity of a sampling request the
// person handed to an agent, which answered it.
const ActivitySamplingForwarded ActivityKind = "sampling_forwarded"
