// Package contextmgr (directory internal/context) owns the context window of
// a session: token accounting, auto-compaction, compact boundaries, the
// summary fallback and the overflow guard. The REPL and -p only call it;
// every compaction decision is made here.
//
// The package is named contextmgr, not context, so that it never shadows the
// standard library's context package, which every blocking call here takes.
// Every import site names it explicitly:
//
//	contextmgr "github.com/clawdcode/clawdcode/internal/context"
//
// # Layers and seams
//
// A Manager layers the design card's three stores: the live context is
// held in a storage.MemoryStore (liveContext, live.go: the summary and the
// records in force, bounded in bytes — at the bound the longest texts are
// cut down in memory, never dropped; the store holds each record's entry,
// so it is the one list the manager reads), every record is persisted through
// the session's JSONL file in the storage.PersistentStore (the
// PersistentStore interface, which *storage.Session satisfies), and what is
// recomputable is kept in the storage.CacheStore (Options.Cache: exact
// token counts, the file contents read for a summary, the notes on each
// part of a chunked summary, a window a server taught). Its policy is split
// along its seams, one file each:
//
//   - accounting.go — the request accounting (accountant): cheap bounds,
//     exact counts, fast estimates, the server's calibration;
//   - window.go — the window guard's policy (windowGuard): the effective
//     and learnt windows, their floors, expiry and precedence, the
//     trigger and the reply reserve; guard.go — the overflow recovery
//     that uses it; truncate.go — cutting texts down in memory;
//   - ladder.go — the context ladder's policy, all of it (ladderPolicy:
//     the order of the steps and every threshold), and its climb; clear.go
//     — the steps that clear tool results (the stubs, the protected tail,
//     superseded reads, the cap on a new result) and their records;
//     collapse.go — the step that folds old rounds of stubs into one line
//     each; brief.go — choosing, once when a session starts, the brief
//     system prompt and tools for a small window (BriefForms) and
//     recording it;
//   - summarize.go — the summariser; backoff.go — its failure back-off;
//   - compact.go — choosing what to keep (retention) and committing a
//     compaction; receipt.go — what a compaction takes out (its receipt,
//     with what its summary calls used and cost, and the recall note);
//   - pins.go — the pins in force (pinBoard), changed only by the pin and
//     unpin records; draft.go — a compaction written but not applied
//     (Draft, /compact --preview); handoff.go — the records a handoff
//     opens its new session with (HandoffRecords);
//   - carry.go — what a compaction carries forward beside the summary,
//     read from the records and never from the summary (carry), written
//     after the summary as its afterword; ledger.go — the evidence
//     ledger read from the tool records, ledgertext.go — its text within
//     its share of the request; todos.go — the model's task list
//     (taskList), read from its TodoWrite records; packet.go — the
//     re-orientation packet (after a compaction, a handoff, a resume);
//     standing.go — the standing instructions the afterword ends with;
//   - resume.go — what a resume reads from the loaded live context beyond
//     its records: where the records after the summary begin, and the
//     count the replies among them calibrate;
//   - usage.go — the figures /context shows (the slash package formats
//     them) and the smallest usable window; mcp.go — whether the MCP
//     servers' tools go out in full or on demand (MCPShare, OfferMCP:
//     the one rule, which /context reports); the session's model usage,
//     its summary calls' apart (usageTally), and what /cost prices
//     (Spend) are in manager.go.
//
// # What a Manager guarantees
//
//   - Every record is appended to the session log as it is added; the log is
//     never rewritten. Truncating long texts to fit the window happens in
//     memory only; a text cut so says, after the omission marker, the
//     Recall call that reads it whole (tools.RecallWhole). A compaction records on its boundary which retained
//     records the context in force sends cut, and to what size
//     (compactMetadata.truncated), so a resume sends them cut the same way.
//   - Every request Request returns is well formed for a strict server:
//     each tool call is answered right after its assistant message, no tool
//     result lacks its call, no two user messages follow each other (see
//     Messages).
//   - Auto-compaction is checked before every request, not only at the end
//     of a turn. It fires when the request reaches Threshold × Window, or
//     when less than the reply reserve (default min(8192, Window/8)) would
//     be left. It is a ladder (ladder.go), climbed until the conversation
//     takes at most 85% of the room the system prompt, tools and pins
//     leave under the trigger: (1) old tool results are sent as a one-line
//     stub (size, outcome, a Recall ref — a unique prefix of the record's
//     uuid), oldest first, the last three replies' results kept (the last
//     one's always), in one batch down to 40% of the room; (2) Read
//     results a later Read, Edit or Write of the same file superseded
//     become stubs too; (3) old rounds whose results are all stubs leave
//     the request, each listed as one line with its Recall ref in the stub
//     of the newest round taken; (4) the summary below; (5) when even that cannot
//     free enough (the request stays over the trigger, or the summary
//     leaves less than half the room free), the user is told once
//     (NoticeWarning, a handoff offered), texts over the trigger are cut
//     down to fit, and no further summary is made until the conversation
//     has grown by half the room, or cutting leaves the reply less than
//     half its reserve (a context_give_up record, so a resume waits
//     too). A step
//     that would free less than a tenth of the conversation is not taken.
//     Each clearing step appends a "system" record with subtype
//     context_clear (compactMetadata.cleared: uuid → step) and a boundary
//     carries the retained results still cleared (compactMetadata.cleared),
//     so a resume sends the same stubs: the same request bytes. Between
//     two steps the prefix of the request does not change. A new tool
//     result over 30% of the room is sent cut down (head and tail), also
//     recorded in a context_clear record (compactMetadata.truncated).
//     Every share is of the room, so the ladder scales with the window.
//   - Counting costs O(new content): a cheap byte bound decides first (a
//     small context never loads the tokenizer), each record is counted at most once
//     (kept on the record as Record.Tokens, and in the Cache), and only
//     when the request could reach the trigger with it, and the server's prompt_tokens, when reported, replaces
//     the count of everything it covered. Usage never tokenizes (front ends
//     call it after every turn): where no exact count exists it shows the
//     fast estimate.
//   - A resume sizes the request as the last reply's recorded usage
//     (prompt_tokens, after the summary) plus what came after, as the
//     live process does — no tokenizer for a steady -c turn — because it
//     sends what that request held: the retained records the boundary
//     names are cut as they were (compactMetadata.truncated). Texts cut
//     down in memory outside a compaction (the overflow guard, a context
//     with nothing to compact) are not cut again on resume; such a cut
//     appends a "system" record with subtype context_cut (the same
//     truncated map), and a reply after it, or after a context_window
//     record, is only a floor under the local count. So is a reply from a
//     model of another tokenizer encoding than this run's (names are not
//     compared: servers answer with dated snapshots, provider prefixes or
//     file names). The system prompt and tool definitions are taken to be
//     this run's.
//   - A compaction keeps verbatim the most recent records worth ~20% of
//     the live messages' tokens, and at most 20% of the window (30% on
//     the fallback, when there is no summary; sized by the counts known and
//     the fast estimate, so it tokenizes neither what it drops nor, unless their
//     byte bound exceeds the ceiling, what it keeps), cut before a user record (or, when the last
//     turn alone is too big, before an assistant reply inside it), so no
//     tool call is ever separated from its results. It appends one
//     compact_boundary record (with the byte offset of the first retained
//     record) and one summary record — with one write when the Log offers
//     AppendBatch, as *storage.Session does, so a crash cannot keep the
//     boundary without its summary — and leaves the request well under the
//     trigger.
//   - When the server rejects a request as too long (RecoverOverflowFrom),
//     the effective window becomes the window the server states in its
//     message (llm.StatedWindow) when smaller than believed, or else 90%
//     of the exact count of the rejected request, and on every further
//     rejection at most half the window believed; never below a floor:
//     1024 tokens, and the largest prompt_tokens the server already
//     answered. A window stated below that floor (50 tokens) is not
//     believed and teaches nothing: the same request is sent again, and
//     only if it is rejected again is the window estimated from it, as
//     without a stated one. A learnt window is forgotten (as by
//     /context --reset-window) once the server answers a request larger
//     than it. Then
//     oversized tool results are cut in memory and, if the request is still
//     over the trigger, it climbs the context ladder as any request does
//     (old results cleared first, a summary only when that cannot free
//     enough, at worst the longest texts cut), each step recorded. The guard keeps going while the window or the request gets
//     smaller, at most MaxOverflowAttempts times; then the caller reports
//     the error. A lowered window is kept in the session: a "system"
//     record with subtype context_window (field contextWindow) is appended
//     when it is learnt, and every later boundary carries it
//     (compactMetadata.effectiveWindow, effectiveWindowAt). A resume
//     starts with the smallest of these in the live context, so -c does
//     not send a request the server has already refused — unless the
//     window was given explicitly (a flag, the environment, a config
//     file: Options.WindowExplicit), or it was learnt more than 24 hours
//     ago, or a context_window record without a window cleared it since
//     (ResetWindow, /context --reset-window).
//   - A window too small for the system prompt and the tool definitions
//     (below MinWindow) is refused by New with a *WindowTooSmallError.
//   - When the summary fails (error, timeout, empty, not smaller than what
//     it replaces), a deterministic digest stands in for it and the session
//     goes on. After 2 failures in a row the next 3 auto-compactions skip
//     the model (then 6, 12, up to 24); a success resets this, and a
//     manual /compact always asks the model. The failure count and the
//     compactions left to skip are kept on the summary record
//     (compactMetadata failures, skipsLeft), so the back-off carries over
//     a resume: a -c -p run per turn does not ask a failing model again.
//
// # Concurrency
//
// A Manager is not safe for concurrent use: one goroutine (the agent loop)
// owns it. Messages is a pure function.
package contextmgr
