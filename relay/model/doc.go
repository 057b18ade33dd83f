// Package model is the relay's client of a configured OpenAI-compatible
// chat-completions endpoint, which drafts answers to MCP sampling requests.
//
// [New] builds a [Client] from a [Config] (endpoint, model name, key, the
// netguard HTTP client); [Client.Draft] sends one sampling request and
// returns the model's message as a [wire.SamplingResult]. The mapping is
// faithful both ways: MCP text, image (an image_url data: URL) and audio
// (input_audio) blocks become content parts, an assistant's tool_use
// blocks become tool_calls, a user's tool_result blocks become role "tool"
// messages, the offered tools become function tools with their input
// schemas, and toolChoice, maxTokens, stop sequences, temperature and the
// system prompt carry over; the answer's tool_calls come back as tool_use
// blocks.
//
// The key is sent only in the Authorization header. It never appears in an
// error (errors are [*wire.Error]s, sanitized, with any echo of the key
// removed) or a log line.
//
// The package never decides whether to send: the relay's sessions call it
// only when a person pressed "Draft with model", or set a server to answer
// sampling with the model.
package model
