package ledger

import (
	"regexp"
	"sync"
)

// The ledger's patterns are compiled on first use, not at start-up:
// compiled in the package's init they cost every run of clawdcode (a
// --version, a listing, a search) about 0.4 MB and 3,500 allocations
// (GODEBUG=inittrace=1), and most runs never read a tool result.

// lazy is the pattern expr, compiled the first time it is asked for.
func lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// lazyAll is the patterns exprs, compiled together the first time they
// are asked for.
func lazyAll(exprs ...string) func() []*regexp.Regexp {
	return sync.OnceValue(func() []*regexp.Regexp {
		res := make([]*regexp.Regexp, len(exprs))
		for i, e := range exprs {
			res[i] = regexp.MustCompile(e)
		}
		return res
	})
}
