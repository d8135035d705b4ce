// Package contextmgr (directory internal/context) owns the context window
// of a session: token accounting, the context ladder and compaction, the
// summary and its fallback, the overflow guard. The front ends and the
// agent loop only call it; every compaction decision is made here.
//
// The package is named contextmgr, not context, so that it never shadows
// the standard library's context package, which every blocking call here
// takes. Every import site names it explicitly:
//
//	contextmgr "github.com/clawdcode/clawdcode/internal/context"
//
// It imports chat, storage, tokens, llm (the request and reply types),
// fileanalyzer (the files a summary carries), ledger (the evidence ledger)
// and toolcall (what a tool call did); never the tools, the agent or a
// front end.
//
// # Layers
//
// A Manager layers the design card's three stores: the live context is
// held in a storage.MemoryStore (live.go: the summary and the records in
// force, bounded in bytes, the longest texts cut down in memory at the
// bound, never dropped); every record is persisted through the session's
// JSONL file (the Log interface, which *storage.Session satisfies); what
// is recomputable is kept in the storage.CacheStore (Options.Cache: exact
// token counts, the files read for a summary, a chunked summary's notes).
//
// The policy is split along its seams, one file each, each file's doc
// saying what it guarantees: accounting.go (the request's size: bounds,
// counts, the server's calibration), window.go and guard.go (the window
// believed, learnt from a server's rejection, and the recovery),
// ladder.go (the ladder's whole policy: clearing old results, superseded
// reads, collapsing rounds, the summary, giving up) with clear.go,
// collapse.go and truncate.go, brief.go (the brief forms for a small
// window), summarize.go, summaryprefix.go (the summary asked at the end
// of the agent's own request, so that a prompt cache serves it),
// usermessages.go (the user's words a summary keeps) and backoff.go (the
// summariser and its back-off),
// compact.go and receipt.go (what a compaction keeps, and its receipt),
// carry.go (what a compaction carries beside the summary: the ledger,
// todos.go's task list, packet.go's re-orientation packet, standing.go's
// standing instructions), pins.go, draft.go (/compact --preview),
// handoff.go, resume.go, usage.go (what /context shows), images.go (what
// an image costs in a request) and mcp.go (the MCP tools in full or on
// demand).
//
// # Guarantees
//
//   - Every record is appended to the session log as it is added, and
//     the log is never rewritten: cutting, clearing and summarising
//     change what is sent, and each is recorded (context_clear,
//     context_cut, context_window, compact_boundary records) so that a
//     resume sends the same bytes. A text cut short says so and names the
//     Recall call that reads it whole (toolcall.RecallWhole).
//   - Every request Request returns is well formed for a strict server:
//     each tool call answered right after its message, no result without
//     its call, no two user messages in a row (Messages).
//   - The ladder is checked before every request, not only at the end of
//     a turn: at Threshold × Window, or when less than the reply reserve
//     would be left. Where it fires depends on tokens, never on time.
//   - Counting costs O(new content): a cheap byte bound decides first,
//     each record is counted at most once and only near the trigger, and
//     the server's prompt_tokens replaces the count of what it covered.
//   - A compaction never separates a tool call from its results, writes
//     its boundary and summary in one write when the Log offers
//     AppendBatch, and goes on with a deterministic digest when the
//     summary fails.
//   - A window too small for the system prompt and the tools is refused
//     by New with a *WindowTooSmallError.
//
// # Concurrency
//
// A Manager is not safe for concurrent use: one goroutine (the agent loop)
// owns it. Messages is a pure function.
package contextmgr
