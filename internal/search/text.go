package search

import (
	"bufio"
	"fmt"
	"io"
	"time"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

// WriteText prints hits as `clawdcode search` and /search show them: per
// hit a heading (session id, time, record type — "summary" for a
// compaction summary — and, with withProject, the project) and its
// snippet indented below. when formats the time.
func WriteText(out io.Writer, hits []Hit, withProject bool, when func(time.Time) string) error {
	w := bufio.NewWriter(out)
	for _, h := range hits {
		typ := h.Type
		if h.Summary {
			typ = "summary"
		}
		// Ids, projects and snippets come from the records: one line each.
		fmt.Fprintf(w, "%s  %s  %s", termtext.Line(h.SessionID), when(h.Timestamp), typ)
		if withProject {
			fmt.Fprintf(w, "  %s", termtext.Line(h.Project))
		}
		fmt.Fprintf(w, "\n    %s\n", termtext.Line(h.Snippet))
	}
	return w.Flush()
}

// NoMatch is the line that says a search found nothing.
func NoMatch(query string, all bool) string {
	where := "this project's sessions"
	if all {
		where = "any session"
	}
	return fmt.Sprintf("No match for %s in %s.", query, where)
}
