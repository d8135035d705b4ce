// Package llmtest is an in-process chat-completions server for tests: it
// speaks POST /v1/chat/completions (and /chat/completions) like OpenAI,
// streaming included, checks every request the way the real API does, and
// answers from a script.
//
// A test starts one with NewServer, points the code under test at URL()
// (for the clawdcode binary: OPENAI_BASE_URL=srv.URL()), scripts replies
// with Enqueue or SetResponder, and asserts on Requests afterwards:
//
//	srv := llmtest.NewServer(t, llmtest.Options{})
//	srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Read", `{"file_path":"a.txt"}`)), llmtest.Text("done"))
//	// run clawdcode with OPENAI_BASE_URL=srv.URL() …
//	last := srv.LastRequest()
//
// What the server guarantees:
//
//   - Validation first. A request the real API would reject (tool messages
//     out of order, unanswered tool calls, a tool call answered twice, an
//     unknown role, a missing model, content or messages) is answered 400
//     with OpenAI's own error body, and does not consume a scripted reply.
//     Options.RejectConsecutiveUser adds a stricter rule than the API's,
//     for tests that check user turns are merged.
//   - With Options.Window set, a request whose estimated size exceeds it is
//     answered 400 context_length_exceeded, exactly as OpenAI words it. The
//     estimate is EstimateTokens unless Options.Tokens replaces it.
//   - Replies come from the FIFO filled by Enqueue; when it is empty, from
//     the responder (SetResponder); with neither, a 400 saying so.
//   - Streams look like OpenAI's: a role chunk, content chunks, tool calls
//     with id and name on their first delta and the arguments in pieces, a
//     finish chunk with an empty delta, a usage chunk with no choices when
//     stream_options.include_usage is set, then "data: [DONE]".
//   - Every request is recorded, rejected ones included, in arrival order
//     (Options.Light keeps only its figures, for long runs).
//   - With Options.PromptCache, a prefix-cache meter reports the tokens a
//     provider's cache would serve as usage.prompt_tokens_details.cached_tokens.
//
// For the context bench (internal/ctxbench) it also plays scripted
// summarisers (Summariser: faithful, lossy, hallucinating, failing) and
// behaviours that decide from their request alone: Probe (which planted
// facts it holds), Reorienter (fetch until the task's facts are there,
// then edit) and Violator (attempt what the user forbade unless the rule
// is in the request). Facts are found by RequestText and Holds: exact
// substring presence of a fact's key, white space folded.
//
// A Server is safe for concurrent use; requests are served concurrently.
package llmtest
