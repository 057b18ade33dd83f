package wire

// Forwarding sampling to an agent. A sampling request a server raises
// during an agent's call is the person's to answer (or the configured
// model's, in [SamplingModel] mode). When the agent's key allows it and the
// agent's own MCP client declares sampling, the ask has Forward set, and
// the person may instead hand the request to that client with
// [OpForwardAsk]: only then does the relay send it, as the server sent it,
// and the client's reply, checked like any answer, becomes the answer. The
// dashboard learns nothing of the agent but its name ([Ask.Agent]).

// MaxForwardErrorRunes caps the error of an agent's client that the
// dashboard is shown.
const MaxForwardErrorRunes = 300
