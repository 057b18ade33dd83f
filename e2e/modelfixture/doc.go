// Package modelfixture is a model server for tests: no model is reachable
// from the test machines, so the relay's chat agent and sampling drafter
// talk to this one instead. It speaks OpenAI's chat completions and
// Anthropic's Messages API on 127.0.0.1, answers what each test scripts,
// and records what it was asked.
//
//	m := modelfixture.Start(t, modelfixture.Options{Key: "sk-test"}) // stopped by t.Cleanup
//	m.Queue(modelfixture.Calls(modelfixture.ToolCall{Name: "get_weather", Arguments: `{"city":"Lyon"}`}),
//		modelfixture.Text("It is cloudy in Lyon."))
//	client := newClient(m.OpenAIURL(), "sk-test") // or m.AnthropicURL()
//	...
//	second := m.Await(t, 2)[1]
//	second.Messages[len(second.Messages)-1].ToolResults() // what the tool said
//
// A program that is not a test (the bench) runs one with [Run] and stops
// it itself.
//
// A [Reply] is provider-neutral: reasoning, text and tool calls (streamed
// in that order, split into deltas of a few runes; several tool calls are
// parallel calls), a stop reason and usage, and faults: an HTTP error with
// Retry-After, an error or a cut mid-stream, a stream that never ends, and
// a latency before the first byte. Replies are queued, or decided from the
// request by a function.
//
// The formats it speaks, streaming when the request says "stream": true:
//
// OpenAI, POST /v1/chat/completions: server-sent "data: " lines of
// chat.completion.chunk objects (id, object, created, model, choices):
// the first delta with role assistant and empty content, then deltas of
// reasoning_content, of content, and of tool_calls (per call a first
// fragment {index, id, type function, function {name, arguments ""}}, then
// {index, function {arguments}} fragments), a chunk with finish_reason
// (stop, tool_calls or length), a chunk with "choices":[] and usage when
// stream_options.include_usage is true (every other chunk then has
// "usage":null), and "data: [DONE]". A mid-stream error is a chunk
// {"error":{message, type, param, code}} and the end of the body. Without
// stream, one chat.completion object (content null when it only calls
// tools). Errors are {"error":{message, type, param, code}}; a wrong key is
// a 401 with code invalid_api_key.
//
// Anthropic, POST /v1/messages: named events whose data carries the same
// type: message_start (a message with id, model, role, empty content and
// usage.input_tokens), then per content block content_block_start (thinking,
// text or tool_use with id, name and input {}), content_block_delta
// (thinking_delta then a signature_delta, text_delta, or input_json_delta
// with partial_json) and content_block_stop; a ping after the first
// content_block_start; message_delta (stop_reason end_turn, tool_use or
// max_tokens, usage.output_tokens); message_stop. A mid-stream error is
// event error {"type":"error","error":{"type":"overloaded_error",...}}.
// Without stream, one message object. Errors are {"type":"error","error":
// {type, message},"request_id"}; a wrong x-api-key is a 401
// authentication_error.
package modelfixture
