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
// Facts are also counted as available (avail.go): in the request, or one
// Recall away through a ref the request holds, opened in the session files
// the binary wrote with the binary's own Recall code.
//
// A baseline binary (builds.go, CTXBENCH_BASELINE) runs every row too, in
// the same pool, so that two builds are measured under the same load; its
// row is printed above the tree's. -ctxbench.suite=ladder runs issue 22's
// small windows instead of the default rows (laddercorpus.go).
//
// The corpus is generated from a fixed seed (corpus.go): each session has
// a real project tree in its temporary directory (files with planted
// numbers, a check script whose exit codes are planted), so Read, Grep,
// Bash and Edit really run. A multi-session corpus (memcorpus.go) measures
// memory across sessions: the memories a user kept (typed, or accepted
// from clawdcode's suggestions) in the first request of the project's
// next session, those naming a removed file or make target withheld, none
// in another project's, no suggestion sent before it is accepted. The
// package's code is test-only: TestContextBench (with -ctxbench.full)
// prints the tables, TestContextBenchShort and TestMemoryBenchShort are
// the short forms with floors that make test runs.
package ctxbench
