// Package ctxwindow holds the end-to-end acceptance tests of clawdcode's
// context management (issue 4, "Done when"). They build the real binary
// once (TestMain) and drive it through the contract — `-p` runs with a
// small --context-window, `-c` to continue, `/compact` and `/context` as
// prompts — against the in-repo chat-completions server (internal/llmtest),
// which validates every request as strictly as the real API and, with a
// window set, rejects an oversized one with OpenAI's
// context_length_exceeded body.
//
// The server counts a request's tokens with tiktoken on its own (counter
// in main_test.go), not with clawdcode's counter, so "compaction fires
// before the server would reject" is checked against an independent
// measure.
//
// What the tests establish, each through the binary and the session file:
//
//   - auto-compaction fires before a strict server of the same window
//     would reject, writing a compact_boundary and its summary record;
//   - the request after a compaction carries the summary right after the
//     system prompt, then the retained tail, with nothing orphaned, and
//     `-c` sends exactly that context again (kept results cut down as the
//     compacting process sent them) without needing the history before
//     the retained part;
//   - a failing summary call falls back (fallback: true, the most recent
//     records worth ~30% of the tokens kept), the run still answers and the user is told (a "clawdcode: warning:"
//     line on stderr); repeated failures stop asking the summariser for a
//     while, within a run and across `-c` runs;
//   - a server window smaller than believed is met by truncation, then
//     compaction, then a clear error that leaves the session resumable;
//   - material larger than the window is summarised in pieces and merged;
//   - the summary request carries the current content of touched files,
//     and the user's /compact instructions;
//   - the context ladder (issue 22) clears old tool results to stubs
//     before it summarises, so a 40-call tool-heavy task finishes at 4k to
//     32k with no rejection and at most a summary per ten calls from 8k
//     on; a stub's ref opens the result with Recall; -c sends the same
//     bytes after a clearing; a window too small for the instructions is
//     said once and not compacted every turn or every run;
//   - /compact and /context print the contract's lines;
//   - an orphan user turn is merged with the next one.
//
// Every process a test starts has a deadline; tests share only the binary.
package ctxwindow
