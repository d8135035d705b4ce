// Package perf holds clawdcode's performance budget (issue 5) as Go
// benchmarks that anyone can rerun with `make bench`; BENCHMARKS.md at the
// repository root records the figures and the command behind each.
//
// It covers what needs the whole program: the real binary, built the way
// `make build` builds it, run as a user runs it against the in-repo
// chat-completions server (internal/llmtest), which answers at once; and
// the whole engine in-process (store, tokenizer, context manager, tools)
// with a model that answers at once, so what is timed is clawdcode's own
// work. The micro-benchmarks of single packages (append, LoadLive, List,
// counting, file analysis, compaction) live next to their code.
//
// How the binary is measured: each run goes through a small launcher
// (perf/launcher) that reports the child's wall time and ru_maxrss. A child
// started straight from the benchmark process would report the benchmark
// process's own peak RSS, because Linux folds the RSS high-water mark of
// the memory a vfork child shares into the child's maxrss at exec.
//
// Fixtures (a 1 GB session, a 200 MB one) are built once per `go test`
// run, lazily, in a temporary directory removed when the run ends; the
// tests of this package check the fixtures themselves on small sizes, so
// that a benchmark never times a malformed file.
//
// The package has no API: everything is in its _test.go files.
package perf
