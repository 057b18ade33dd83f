// Package models holds the operator's named models: the chat's and the
// sampling drafts'.
//
// A [Spec] names a model, its provider (an OpenAI-compatible chat-completions
// endpoint, Anthropic's Messages API, or the scripted demo model), its URL,
// the model asked for there, the operator's key, whether it takes images and
// a cap on its answers' tokens. Specs come from a JSON file ([ParseFile]) or
// repeated --model flags ([ParseFlag]); a key is never written in either,
// only named by the file or the environment variable that holds it, and read
// at start.
//
// A [Registry] is built from the specs ([New]) with the relay's netguard
// HTTP client: every request to a model goes through it. Models whose URL is
// on a loopback address, which only the operator can configure, go through
// Options.Local, a netguard client that allows loopback. [Registry.Model]
// hands out a model for a person: with their own key when they set one
// ([Registry.SetKey], kept sealed by a [KeyStore]; write-only, for
// configured models only), else with the operator's. [Registry.HandleOps]
// registers the dashboard's ops: the list of models ([wire.OpChatModels])
// and setting one's key ([wire.OpSetModelKey]).
//
// [Registry.Drafter] drafts answers to MCP sampling requests with one model.
// The mapping is faithful both ways: text, image (to a model that takes
// images) and audio (WAV and MP3, to a chat-completions endpoint) blocks
// become parts, an assistant's tool_use blocks tool calls, a user's
// tool_result blocks tool results; the offered tools, toolChoice, maxTokens,
// stop sequences, temperature and the system prompt carry over; a block the
// model has no place for is said in words. The answer's text and tool calls
// come back as text and tool_use blocks.
//
// The demo model ([DemoSpec]) is no AI and says so at the start of every
// answer ([DemoLabel]). It needs no network: offered a tool of the demo
// server (relay/demo) and no tool result yet, it calls greet, which asks the
// person a question, else echo with the person's text; given a tool result,
// it answers with the result's text.
//
// Keys never appear in an error, a log line or a wire frame: a [Spec]
// prints and logs without its key, and the model clients (relay/llm) scrub
// any echo of it.
package models
