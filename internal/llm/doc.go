// Package llm is clawdcode's only door to an OpenAI-compatible
// chat-completions server, and the only importer of go-openai (its request
// and chunk types, and GET /models).
//
// Both wire APIs — chat completions and Responses — stream through one
// attempt (streamAttempt, stream.go): one SSE event reader (sse.go), one
// set of timers and bounds, and one classification of a stream that did
// not complete (cut, idle, overtime, not an event stream); a wireDecoder
// per API only turns its events into a reply.
//
// Client.Stream sends one request with streaming and
// stream_options.include_usage, hands text to the caller as it arrives,
// accumulates tool-call deltas (by index, tolerating providers that send a
// whole call in one delta, repeat empty tool_calls arrays or omit the index)
// and returns either a complete Response or an error. It guarantees:
//
//   - A Response is only returned for a reply the server finished (a
//     finish_reason was received). A stream that ends early yields an *Error
//     of KindStreamCut; nothing half-parsed is ever returned as a Response.
//   - Every server failure comes back as an *Error with a Kind decided from
//     the structured error (status, code, type), falling back to the known
//     overflow phrasings of vLLM, llama.cpp, Ollama and OpenRouter only where
//     those servers send no code.
//   - A 2xx answer that is no event stream at all (a proxy's or web UI's
//     HTML page, a plain JSON body) is KindNotStream, naming its content
//     type and OPENAI_BASE_URL, not a "stream cut"; like a 404 from a
//     wrong base path it is not retried.
//   - Rate limits, 5xx, mid-stream server errors, network errors and cut
//     streams are retried (bounded, exponential backoff with jitter,
//     Retry-After honoured) — but only while no text has been shown through
//     onDelta in the failing attempt: once the user has seen partial output
//     the error is returned with Partial set, so the front end can say so.
//   - A server that rejects stream_options (older Azure API versions, some
//     proxies) is asked again without it, and never again with it by this
//     Client; its replies then carry no Usage.
//   - A cancelled ctx ends the call at once with an error wrapping ctx.Err();
//     it is never retried. A server that goes silent for Config.IdleTimeout
//     ends the attempt with a KindNetwork error wrapping ErrIdleTimeout
//     (never context.Canceled) instead of hanging. Once the response has
//     arrived the timer counts content: keep-alives (SSE comments, ping
//     events) do not reset it, so a stream of keep-alives alone ends
//     after IdleTimeout, not MaxReplyTime. Such an attempt is
//     retried once at most, so a hung server costs about two IdleTimeouts,
//     not one per allowed attempt.
//
// A Client is safe for concurrent use; onDelta is called from the goroutine
// that called Stream, in order.
package llm
