// Package contextmgr (directory internal/context) owns the context window of
// a session: token accounting, auto-compaction, compact boundaries, the
// summary fallback and the overflow guard. The REPL and -p only call it.
//
// The package is named contextmgr, not context, so that it never shadows the
// standard library's context package, which every blocking call here takes.
// Every import site names it explicitly:
//
//	contextmgr "github.com/clawdcode/clawdcode/internal/context"
package contextmgr
