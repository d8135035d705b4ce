// Package ctxbench is the context bench (make bench-context,
// docs/context-bench.md): it drives the real clawdcode binary, as a user
// would, through a corpus of generated sessions against internal/llmtest,
// and measures what reaches the model after compaction — the planted
// facts a probe finds in its request, the calls a re-orienter makes
// before its first edit, whether a violator does what the user forbade —
// and what it costs: input tokens, the share a prefix cache would serve,
// dollars at list prices, summaries, rejections, clawdcode's wall and
// CPU time.
//
// Nothing here looks inside clawdcode: every figure comes from the
// requests the server receives and the result objects the binary prints,
// so the numbers mean the same for any future design of the context.
//
// The corpus is generated from a fixed seed (corpus.go): each session has
// a real project tree in its temporary directory (files with planted
// numbers, a check script whose exit codes are planted), so Read, Grep,
// Bash and Edit really run. The package's code is test-only: TestContextBench
// (with -ctxbench.full) prints the table, TestContextBenchShort is the short
// form with floors that make test runs.
package ctxbench
