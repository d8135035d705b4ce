package llmtest

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Reply is one scripted answer. The zero Reply is an empty assistant text.
// Fields combine: Delay, then Hang, then an HTTP error (Status) or a reply
// whose stream can be cut or broken by an error event.
type Reply struct {
	// Text is the assistant's content, streamed in word-sized pieces.
	Text string
	// Reasoning is streamed before Text as reasoning_content deltas, as
	// DeepSeek and vLLM send a reasoning model's thinking (chat streams
	// only); it is no part of the reply's content.
	Reasoning string
	// ToolCalls are streamed after Text, in order, each with an index.
	ToolCalls []ToolCall
	// FinishReason defaults to "tool_calls" when there are tool calls, else "stop".
	FinishReason string
	// Usage overrides the reported token counts; nil = the estimates.
	Usage *Usage

	// Status, when non-zero, answers with this HTTP status and Body
	// instead of a completion.
	Status int
	Body   string
	// Header is added to the response, errors and successes alike
	// (e.g. Retry-After).
	Header http.Header

	// Cut closes the connection abruptly after CutAfter stream chunks,
	// without a finish chunk or [DONE]. For a non-streaming request the
	// JSON body is cut in half.
	Cut      bool
	CutAfter int
	// StreamError, a JSON object, is sent as `data: {"error": StreamError}`
	// after ErrorAfter chunks, followed by [DONE] — how OpenAI and
	// OpenRouter report a failure once the stream has begun.
	StreamError string
	ErrorAfter  int

	// KeepAlives SSE comment lines (": OPENROUTER PROCESSING") are sent
	// before the first chunk, as OpenRouter does while a model warms up.
	KeepAlives int
	// Delay waits before answering.
	Delay time.Duration
	// Pause, after PauseAfter stream chunks, stops the stream for that
	// long mid-answer: what a client shows of an answer still streaming.
	Pause      time.Duration
	PauseAfter int
	// Resume, when set, pauses the stream after PauseAfter chunks until it
	// is closed (or Pause, if also set, runs out): a test that acts while
	// an answer is still streaming waits for its own step, not for a time
	// that a loaded machine can exhaust.
	Resume <-chan struct{}
	// Hang never answers: the handler waits until the client goes away or
	// the server closes.
	Hang bool
	// Endless streams Text (or a default sentence) as content chunks over
	// and over, never finishing, until the client goes away or the server
	// closes: a runaway model. Streaming chat requests only.
	Endless bool
}

// ToolCall is one call the scripted model makes. An empty ID is filled in
// with a fresh "call_N" id.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // raw JSON text; it may deliberately be malformed
}

// Usage is the token count reported for a reply.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	CachedTokens     int // usage.prompt_tokens_details.cached_tokens
}

// Endless streams piece (a default sentence when empty) without end.
func Endless(piece string) Reply { return Reply{Text: piece, Endless: true} }

// Text answers with plain text.
func Text(s string) Reply { return Reply{Text: s} }

// Call is a tool call with the given name and JSON arguments.
func Call(name, arguments string) ToolCall { return ToolCall{Name: name, Arguments: arguments} }

// ToolCalls answers with one or more (parallel) tool calls.
func ToolCalls(calls ...ToolCall) Reply { return Reply{ToolCalls: calls} }

// Error answers with an HTTP status and an OpenAI-shaped error body.
func Error(status int, message, typ, code string) Reply {
	return Reply{Status: status, Body: errorBody(message, typ, "", code)}
}

// RateLimited answers 429 rate_limit_exceeded with a Retry-After header of
// whole seconds (none when retryAfter is 0).
func RateLimited(retryAfter time.Duration) Reply {
	r := Error(http.StatusTooManyRequests,
		"Rate limit reached for gpt-4o in organization org-llmtest on tokens per min (TPM): Limit 30000, Used 29937, Requested 385. Please try again in 1s. Visit https://platform.openai.com/account/rate-limits to learn more.",
		"tokens", "rate_limit_exceeded")
	if retryAfter > 0 {
		r.Header = http.Header{"Retry-After": {strconv.Itoa(int(retryAfter.Round(time.Second) / time.Second))}}
	}
	return r
}

// QuotaExceeded answers 429 insufficient_quota, which is not worth retrying.
func QuotaExceeded() Reply {
	return Error(http.StatusTooManyRequests,
		"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
		"insufficient_quota", "insufficient_quota")
}

// ServerError answers 500 with OpenAI's server_error body.
func ServerError() Reply {
	return Error(http.StatusInternalServerError,
		"The server had an error while processing your request. Sorry about that!", "server_error", "")
}

// Unauthorized answers 401 invalid_api_key, as OpenAI does for a bad key.
func Unauthorized() Reply {
	return Reply{Status: http.StatusUnauthorized, Body: unauthorizedBody}
}

// ContextLengthExceeded answers 400 context_length_exceeded as OpenAI words it.
func ContextLengthExceeded(window, tokens int) Reply {
	return Reply{Status: http.StatusBadRequest, Body: overflowBody(window, tokens, 0)}
}

// MidStreamError streams r and then, after n chunks, an error event with
// OpenAI's server_error object.
func MidStreamError(r Reply, n int) Reply {
	r.StreamError = `{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}`
	r.ErrorAfter = n
	return r
}

// CutAfter streams r and drops the connection after n chunks.
func CutAfter(r Reply, n int) Reply {
	r.Cut = true
	r.CutAfter = n
	return r
}

// Hang never answers.
func Hang() Reply { return Reply{Hang: true} }

const unauthorizedBody = `{"error":{"message":"Incorrect API key provided: sk-llmt***test. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`

func overflowBody(window, tokens, completion int) string {
	msg := fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", window, tokens)
	if completion > 0 {
		msg = fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.", window, tokens+completion, tokens, completion)
	}
	return errorBody(msg, "invalid_request_error", "messages", "context_length_exceeded")
}
