// Package llm is the relay's client of language models: it streams a
// model's answer from an OpenAI-compatible chat-completions endpoint
// (OpenAI, Ollama, llama.cpp's server, vLLM, LM Studio, OpenRouter) or
// from Anthropic's Messages API, in one provider-neutral form.
//
// [New] builds a [Client] from a [Config] (kind, endpoint, model, key, the
// netguard HTTP client). [Client.Stream] sends a [Request] and yields
// [Event]s as they arrive: pieces of text and of reasoning, tool calls
// begun and the pieces of their JSON arguments, token usage, and an end
// with a [StopReason]. [Collect] assembles a stream into a [Response].
//
// The mapping follows each provider's documented format. A request's
// system prompt becomes a "system" message (chat completions) or the
// system field (Messages); images become image_url data: URLs or base64
// image blocks; WAV and MP3 audio becomes input_audio (chat completions
// only: Messages takes no audio, and such a request is refused); an
// assistant's tool calls become tool_calls or tool_use blocks; a user's
// tool results become role "tool" messages (their images in the user
// message after them) or tool_result blocks with is_error; reasoning goes
// back only to Anthropic, with its signature. Tools, tool choice
// (required is Anthropic's "any"), max tokens (Anthropic requires one:
// [DefaultMaxTokens]), stop sequences and temperature carry over. Both
// answers are read as server-sent events: chat-completion chunks ending
// with "data: [DONE]" (usage asked with stream_options.include_usage), and
// Messages events ending with message_stop; a stream that stops before
// its end marker is an error. Events, the whole answer, the number of
// tool calls and their arguments are capped ([MaxEventBytes],
// [MaxResponseBytes], [MaxToolCalls], [MaxArgumentBytes]).
//
// The key is sent only in its header (Authorization: Bearer, or
// Anthropic's x-api-key), never over plain http except to a loopback
// address. It never appears in an error (errors are [*Error]s, sanitized
// and capped, with any echo of the key removed) or a log line.
//
// The package never dials by itself: a nil Config.HTTPClient fails every
// request. The caller's context bounds a request; leaving a stream early
// or cancelling the context closes its connection at once.
package llm
